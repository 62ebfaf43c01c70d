// A configuration problem, located as precisely as we can: file, line and column, document, field path.

export interface ConfigProblem {
  /** The file as the user named it (or a description such as `<stdin>`); absent for problems with the options. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  /** `Pipeline flux-system/podinfo`, or `document 3` when the document has no usable kind and name. */
  document?: string;
  /** Field path inside the document, e.g. `spec.environments[1].targets[0].clusterRef.name`. */
  path?: string;
  message: string;
}

/** One line: `file:line:col: document: path: message`, leaving out the parts that are unknown. */
export function formatProblem(problem: ConfigProblem): string {
  let where = problem.file ?? '';
  if (where && problem.line !== undefined) where += `:${problem.line}`;
  if (where && problem.line !== undefined && problem.column !== undefined) where += `:${problem.column}`;
  const parts = [where, problem.document, problem.path].filter((part): part is string => Boolean(part));
  return [...parts, problem.message].join(': ');
}

/** Formats a field path such as ['spec', 'environments', 1, 'name'] as `spec.environments[1].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out;
}

/** Thrown by callers that want an exception; carries every problem, never a value from a Secret. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(
      `${problems.length} configuration problem${problems.length === 1 ? '' : 's'}:\n` +
        problems.map((problem) => `  ${formatProblem(problem)}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}
