// A configuration warning: something Weave's pipeline-controller accepts and so is accepted here, but that probably
// is not what was meant (docs/weave-compatibility.md). It is located like a problem, and `apply` prints it on standard
// error as `warning: file:line:column: document: field: message`; it never stops anything from being applied.
import { formatProblem } from './problems.js';
import { problemAt, type DocumentAt } from './validate.js';

export interface ConfigurationWarning {
  /** The file as the user named it (or a description such as `<stdin>`). */
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** `Pipeline flux-system/podinfo`, as in problems. */
  document: string;
  /** Field path inside the document, e.g. `spec.promotion.strategy.notification`. */
  path: string;
  message: string;
}

/** A warning at a field of a document (path relative to the document, as the user sees it). */
export function warningAt(at: DocumentAt, path: readonly PropertyKey[], message: string): ConfigurationWarning {
  const { line, column, path: formatted } = problemAt(at, path, message);
  return { file: at.source.file, line, column, document: at.label, path: formatted ?? '', message };
}

/** One line, as problems are written: `file:line:column: document: field: message`. */
export function formatWarning(warning: ConfigurationWarning): string {
  return formatProblem(warning);
}
