// The evidence of a promotion (docs/evidence.md) as the Markdown section a pull request shows below Weave's block:
// a heading, one sentence, and a table of the targets. Every host renders this subset of Markdown the same way.
//
// Everything in it comes from outside (environment and target names from the Pipeline, revisions and phases as the
// leaf clusters report them), so every value is escaped: a `|` cannot end a cell, a line break cannot end a row, and
// `<`, `>`, `&` are entities, so no value becomes HTML. The one piece of HTML is ours: `<br>` for a line break inside
// a cell.
import type { PromotionEvidence } from '../../decision/promotion-evidence.js';

export const EVIDENCE_HEADING = '### Evidence';

const TABLE_HEAD = ['| target | revision | phase | healthy since (UTC) |', '| --- | --- | --- | --- |'];
const CHECKS_HEAD = ['| check | kind | verdict | value | checked (UTC) |', '| --- | --- | --- | --- | --- |'];
/** What a cell shows when the evidence has no value for it. */
const NONE = '-';

/** Text from outside as Markdown that shows it literally, on one line. */
export function markdownText(text: string): string {
  return text
    .replace(/[\\`*_[\]|#~]/g, (char) => `\\${char}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r\n|\r|\n/g, '<br>')
    .replace(/\p{Cc}/gu, ' ');
}

/**
 * The lead sentence of a promotion's evidence: where the candidate comes from (every environment, after a fan-in),
 * and the soak each served.
 */
export function promotedFromSentence(evidence: PromotionEvidence): string {
  const sources = everySource(evidence).map((one) => {
    const soak = one.soak === undefined ? '' : `, soak ${markdownText(one.soak)} served`;
    return `**${markdownText(one.from)}**${soak}`;
  });
  return `Promoted from ${sources.join(' and ')}.`;
}

/**
 * The evidence of each environment the candidate comes from: one, or several after a fan-in, whose targets and
 * checks are then named with their environment.
 */
function everySource(evidence: PromotionEvidence): PromotionEvidence[] {
  const { also, ...first } = evidence;
  if (also === undefined || also.length === 0) return [first];
  return [first, ...also].map((one) => ({
    ...one,
    targets: one.targets.map((target) => ({ ...target, name: `${one.from}: ${target.name}` })),
    ...(one.checks ? { checks: one.checks.map((check) => ({ ...check, name: `${one.from}: ${check.name}` })) } : {}),
  }));
}

/**
 * The section: heading, `lead` (already Markdown), the table of targets and, for an environment with verification
 * checks, the table of their last results, at most `maxLength` characters. Target rows are left out from the end,
 * and counted in a line, until it fits; undefined when not even the heading, the lead and the checks fit.
 */
export function evidenceSection(evidence: PromotionEvidence, lead: string, maxLength: number): string | undefined {
  const sources = everySource(evidence);
  const rows = sources
    .flatMap((one) => one.targets)
    .map((target) =>
      tableRow([
        target.name,
        target.revision ?? NONE,
        target.phase,
        target.healthySince === undefined ? NONE : utcTime(target.healthySince),
      ]),
    );
  const checks = sources
    .flatMap((one) => one.checks ?? [])
    .map((check) => tableRow([check.name, check.kind, check.verdict, check.value, utcTime(check.checkedAt)]));
  for (let shown = rows.length; shown >= 0; shown--) {
    const left = rows.length - shown;
    const lines = [EVIDENCE_HEADING, '', lead];
    if (rows.length > 0) lines.push('', ...TABLE_HEAD, ...rows.slice(0, shown));
    if (left > 0) lines.push('', `… and ${left} more ${left === 1 ? 'target' : 'targets'}, left out for length.`);
    if (checks.length > 0) lines.push('', ...CHECKS_HEAD, ...checks);
    const section = lines.join('\n');
    if (section.length <= maxLength) return section;
  }
  return undefined;
}

function tableRow(cells: readonly string[]): string {
  return `| ${cells.map(markdownText).join(' | ')} |`;
}

/** `2026-11-01 10:00:00`: an ISO 8601 time in UTC to the second; anything unreadable is shown as it is. */
function utcTime(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return time
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '');
}
