// What every form the dashboard acts on shares: the request guard a post passes before its fields are used, and the
// redirect back to the pipeline page with a notice from a fixed set (the page never echoes a query value).
import type * as z from 'zod';
import { guardRequest, type RequestGuardVerdict } from '../request-guard.js';
import type { DashboardContext, DashboardRequest, DashboardResponse } from './context.js';

/** Why a post was refused, by the request guard's verdict: what the 403 page says. */
export type RefusalMessages = Readonly<Record<Exclude<RequestGuardVerdict, 'accepted'>, string>>;

/** Why the approval or rejection POST redirected with a note: a fixed set, so the page never echoes a query value. */
const NOTES = {
  'not-delivered':
    'Approved. No verifier took the promotion (pipelinectl serve is not running on this data directory): it ' +
    'promotes when serve starts.',
  counted: 'Your approval is counted. The promotion starts once the approvals the environment requires are in.',
  'already-counted': 'You approved this revision before: an approver counts once. More approvals are needed.',
  rejected: 'Rejected. The revision is not promoted into this environment.',
  'already-rejected': 'The revision was rejected before: nothing changed.',
  frozen: 'Frozen. No promotion into the environments the switch covers starts until it is lifted or ends.',
  unfrozen: 'Unfrozen. The verifier decides the pipeline again now: a promotion the switch held back starts.',
  'unfrozen-not-delivered':
    'Unfrozen. No verifier took the pipeline (pipelinectl serve is not running on this data directory): a ' +
    'promotion the switch held back starts when serve starts.',
} as const;
export type Note = keyof typeof NOTES;

/** What a form handler says about its form: how it is read, and what a refused or malformed post is answered. */
export interface FormRules<T extends Record<string, unknown>> {
  schema: z.ZodType<T>;
  /** The field that carries the form token. */
  csrfField: string;
  refused: { title: string; log: string; messages: RefusalMessages };
  /** Where the 403 page links back to. */
  back: string;
  /** What the 400 page says when the fields do not parse, and where it links back to (`back` unless given). */
  malformed: { message: string; back?: string };
}

/**
 * A posted form's fields, once the request passed the CSRF token and same-origin checks (request-guard.ts) and the
 * fields parsed; otherwise the answer: the 403 page for a refused request, the 400 page for malformed fields. Every
 * form the dashboard acts on comes through here.
 */
export function guardedForm<T extends Record<string, unknown>>(
  context: DashboardContext,
  request: DashboardRequest,
  rules: FormRules<T>,
): { data: T } | { response: DashboardResponse } {
  const { schema, csrfField, refused, back, malformed } = rules;
  const form = schema.safeParse(Object.fromEntries(new URLSearchParams(request.body)));
  const token = form.success ? form.data[csrfField] : undefined;
  const verdict = guardRequest(
    { headers: request.headers, token: typeof token === 'string' ? token : undefined },
    request.origin,
    context.csrfToken,
  );
  if (verdict !== 'accepted') {
    context.logger.warn(`dashboard: ${refused.log} refused`, { verdict });
    return { response: context.problem(403, refused.title, refused.messages[verdict], back) };
  }
  if (!form.success) return { response: context.problem(400, 'Bad form', malformed.message, malformed.back ?? back) };
  return { data: form.data };
}

/** Back to the pipeline page at the environment, with a fixed notice if any. */
export function redirectToEnvironment(back: string, env: string, note: Note | undefined): DashboardResponse {
  const location = `${back}${note ? `?note=${note}` : ''}#env-${encodeURIComponent(env)}`;
  return { status: 303, headers: { location } };
}

/** Back to the pipeline page at its stop switch, with a fixed notice. */
export function redirectToStopSwitch(back: string, note: Note): DashboardResponse {
  return { status: 303, headers: { location: `${back}?note=${note}#stop-switch` } };
}

/**
 * The notice the redirect asked for, if it is one the dashboard knows: one of NOTES' own keys (`in` would also find
 * `constructor` and the rest of Object.prototype).
 */
export function noteOf(url: URL): string | undefined {
  const note = url.searchParams.get('note');
  return note !== null && Object.hasOwn(NOTES, note) ? NOTES[note as Note] : undefined;
}
