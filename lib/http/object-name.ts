/**
 * Could be a Kubernetes namespace or object name (DNS-1123, ≤ 253). Anything else cannot be registered or indexed,
 * so the routes answer it as unknown without a store lookup (and it never becomes an oversized DynamoDB key).
 */
export function isObjectName(value: string): boolean {
  return value.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value);
}
