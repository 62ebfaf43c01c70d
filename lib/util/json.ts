// The first step of reading an untrusted JSON body: is it a JSON object at all? The reasons are fixed strings, so
// nothing of the body can end up in an answer or a log line.
export type JsonObjectResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; reason: 'empty body' | 'malformed JSON' | 'not an object' };

export function parseJsonObject(body: string): JsonObjectResult {
  if (body.trim() === '') return { ok: false, reason: 'empty body' };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'malformed JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, reason: 'not an object' };
  return { ok: true, value: json as Record<string, unknown> };
}
