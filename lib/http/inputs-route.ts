// GET /v1/inputs/{ns}/{pipeline}/{env}: what an `external-service` environment's leaf clusters may run, in the shape
// Flux Operator's ExternalService input provider reads (docs/external-service.md): `{"inputs": [{"id": …, …}]}`, one
// input, or none while nothing is known. The caller presents the environment's token (derived from the master key,
// like the cluster keys) as a bearer token or as the password of basic authentication; anything else is the same
// 401, which says nothing about the pipeline. One store read per authenticated request, none per refused one.
import type { ServedInput } from '../decision/types.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import { deriveInputToken, matchesAnyToken } from '../signing/hmac.js';
import { basicPassword } from '../signing/presented-secrets.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { clip, type RequestLog } from './request-log.js';
import { UNAUTHORIZED } from './responses.js';
import { jsonResponse, jsonText, type HttpRequest, type HttpResponse } from './types.js';

/** Flux Operator refuses an answer over 900 KiB; one input is far below, and this says so if that ever changes. */
export const MAX_INPUTS_BYTES = 900 * 1024;

/** A missing or wrong token: the receiver's one 401, saying which scheme to use. */
const BEARER_UNAUTHORIZED: HttpResponse = {
  ...UNAUTHORIZED,
  headers: { ...UNAUTHORIZED.headers, 'www-authenticate': 'Bearer' },
};
const INPUTS_TOO_LARGE = jsonResponse(500, { error: `the inputs exceed ${MAX_INPUTS_BYTES} bytes` });

/** One input, as a ResourceSet template reads it (`<< inputs.version >>`); an unknown field is an empty string. */
export interface InputJson {
  id: string;
  pipeline: string;
  environment: string;
  version: string;
  previousVersion: string;
  promotedAt: string;
  approvedBy: string;
}

export async function serveInputs(
  request: HttpRequest,
  deps: ReceiverDeps,
  log: RequestLog,
  pipeline: ObjectKey,
  env: string,
): Promise<HttpResponse> {
  log.pipeline = clip(objectKeyString(pipeline));
  log.env = clip(env);
  const masterKeys = await deps.masterKeys();
  const tokens = [masterKeys.current, masterKeys.previous]
    .filter((key): key is string => key !== undefined)
    .map((masterKey) => deriveInputToken(masterKey, pipeline, env));
  if (!matchesAnyToken(presentedToken(request.headers.authorization), tokens)) {
    log.outcome = 'bad-token';
    return BEARER_UNAUTHORIZED;
  }
  const served = await deps.store.getServedInput(pipeline, env);
  log.outcome = served ? 'served' : 'nothing-served';
  if (served) log.revision = clip(served.version);
  const body = JSON.stringify({ inputs: served ? [inputJson(pipeline, served)] : [] });
  if (Buffer.byteLength(body) > MAX_INPUTS_BYTES) {
    log.outcome = 'inputs-too-large';
    return INPUTS_TOO_LARGE;
  }
  return jsonText(200, body);
}

/** The input for a served record: its id is unique per environment, as the provider requires. */
export function inputJson(pipeline: ObjectKey, served: ServedInput): InputJson {
  return {
    id: `${pipeline.namespace}-${pipeline.name}-${served.env}`,
    pipeline: pipeline.name,
    environment: served.env,
    version: served.version,
    previousVersion: served.previousVersion ?? '',
    promotedAt: served.promotedAt ?? '',
    approvedBy: served.approvedBy ?? '',
  };
}

/** The token of `Authorization: Bearer <token>`, or the password of `Basic base64(user:password)`. */
function presentedToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '')?.[1] ?? basicPassword(header);
}
