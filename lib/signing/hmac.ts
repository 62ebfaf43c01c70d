// HMAC signatures of the webhooks, in one module that depends on nothing of ours but the object key: the receiver
// verifies them, and the notification strategy, the CLI and the local mode sign with them.
//
// - Events from leaf clusters are signed by Flux's generic-hmac Provider: `X-Signature: sha256=<hex>` over the raw
//   body, with a per-cluster key derived from the master key, so no per-cluster secret is stored.
// - Weave's `/promotion` and `/approval` accept `<sha224|sha256|sha384|sha512>=<hex>` with a Pipeline's `hmac-key`.
//
// The comparison is constant time; a missing or malformed header is simply not a valid signature.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ObjectKey } from '../pipeline/model.js';
import { sameSecret } from './presented-secrets.js';

export const HMAC_ALGORITHMS = ['sha224', 'sha256', 'sha384', 'sha512'] as const;
export type HmacAlgorithm = (typeof HMAC_ALGORITHMS)[number];

/** Flux's generic-hmac Provider only ever sends sha256, and the events route accepts nothing else. */
export const EVENT_SIGNATURE_ALGORITHMS: readonly HmacAlgorithm[] = ['sha256'];
/** What Weave's sign_verifier accepts on `/promotion` and `/approval`. */
export const WEAVE_SIGNATURE_ALGORITHMS: readonly HmacAlgorithm[] = HMAC_ALGORITHMS;

const DIGEST_BYTES: Record<HmacAlgorithm, number> = { sha224: 28, sha256: 32, sha384: 48, sha512: 64 };
const SIGNATURE_HEADER = /^(sha224|sha256|sha384|sha512)=([0-9a-fA-F]+)$/;

/**
 * The key a leaf cluster signs its events with: the lowercase hex of HMAC-SHA256(key = UTF-8 bytes of the master
 * key, message = `cluster:<ns>/<name>`). Its UTF-8 bytes (the 64 hex characters, not the 32 bytes they encode) are
 * what the cluster's Flux Secret holds as `token`.
 */
export function deriveClusterKey(masterKey: string, cluster: ObjectKey): string {
  return createHmac('sha256', Buffer.from(masterKey, 'utf8'))
    .update(`cluster:${cluster.namespace}/${cluster.name}`, 'utf8')
    .digest('hex');
}

/**
 * The token an `external-service` environment's input provider presents (docs/external-service.md): the lowercase
 * hex of HMAC-SHA256(key = the master key, message = `inputs:<ns>/<pipeline>/<env>`). One per (pipeline,
 * environment), so a leaf cluster's token reads that environment's input and nothing else, and none is stored.
 */
export function deriveInputToken(masterKey: string, pipeline: ObjectKey, env: string): string {
  return createHmac('sha256', Buffer.from(masterKey, 'utf8'))
    .update(`inputs:${pipeline.namespace}/${pipeline.name}/${env}`, 'utf8')
    .digest('hex');
}

/** Whether `presented` is one of `tokens`, each compared in constant time (sameSecret), whatever matches. */
export function matchesAnyToken(presented: string | undefined, tokens: readonly string[]): boolean {
  if (presented === undefined) return false;
  let valid = false;
  for (const token of tokens) valid = sameSecret(presented, token) || valid;
  return valid;
}

/** `<algorithm>=<lowercase hex>` of the body: the `X-Signature` value a sender puts on the request. */
export function signatureHeader(
  body: Buffer | string,
  key: Buffer | string,
  algorithm: HmacAlgorithm = 'sha256',
): string {
  return `${algorithm}=${createHmac(algorithm, keyBytes(key)).update(body).digest('hex')}`;
}

/**
 * True when `header` is `<algorithm>=<hex>` with an algorithm in `allowed` and the HMAC of `body` under `key`.
 * An empty key never verifies (Weave rejects an empty `hmac-key` too).
 */
export function verifySignature(
  header: string | undefined,
  body: Buffer,
  key: Buffer | string,
  allowed: readonly HmacAlgorithm[],
): boolean {
  const secret = keyBytes(key);
  if (secret.length === 0) return false;
  const parsed = parseSignature(header, allowed);
  if (parsed === undefined) return false;
  const expected = createHmac(parsed.algorithm, secret).update(body).digest();
  return parsed.digest.length === expected.length && timingSafeEqual(parsed.digest, expected);
}

/**
 * True when `header` has the shape of a signature `verifySignature` could accept: an allowed algorithm and a hex
 * digest of its length. Needs no key, so a receiver can refuse anything else before it reads one.
 */
export function isWellFormedSignature(header: string | undefined, allowed: readonly HmacAlgorithm[]): boolean {
  return parseSignature(header, allowed) !== undefined;
}

function parseSignature(
  header: string | undefined,
  allowed: readonly HmacAlgorithm[],
): { algorithm: HmacAlgorithm; digest: Buffer } | undefined {
  if (header === undefined) return undefined;
  const match = SIGNATURE_HEADER.exec(header.trim());
  const algorithm = match?.[1] as HmacAlgorithm | undefined;
  const hex = match?.[2];
  if (algorithm === undefined || hex === undefined || !allowed.includes(algorithm)) return undefined;
  // The length of a digest is public, so checking it first leaks nothing about the key.
  if (hex.length !== DIGEST_BYTES[algorithm] * 2) return undefined;
  return { algorithm, digest: Buffer.from(hex, 'hex') };
}

/** True when the signature verifies under any of `keys`; every key is tried, so the timing does not say which. */
export function verifySignatureWithAny(
  header: string | undefined,
  body: Buffer,
  keys: readonly (Buffer | string)[],
  allowed: readonly HmacAlgorithm[],
): boolean {
  let valid = false;
  for (const key of keys) valid = verifySignature(header, body, key, allowed) || valid;
  return valid;
}

function keyBytes(key: Buffer | string): Buffer {
  return typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
}
