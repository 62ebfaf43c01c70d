// The shape check for untyped JSON and YAML: answers from client-node, parsed configuration documents.

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
