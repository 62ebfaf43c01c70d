// EKS clusters without a kubeconfig (a GitopsCluster with `spec.eks`): the endpoint and CA come from
// eks:DescribeCluster, the bearer token is a presigned STS GetCallerIdentity URL (what `aws eks get-token` prints),
// signed with the function's own credentials or with those of an assumed role. Everything is cached: cluster data for
// an hour, assumed-role credentials until shortly before they expire, each token for 14 of its 15 minutes.
// The EKS and STS clients are imported on the first EKS cluster's connection, not with this module: the verifier
// builds an EksAccess at start, and most installations register no EKS cluster (their bundle keeps the clients in a
// chunk of their own, infra/bundling.ts).
import type { EKSClient } from '@aws-sdk/client-eks';
import type { STSClient } from '@aws-sdk/client-sts';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { ClusterAccessError, type ClusterErrorKind } from './port.js';

/** `spec.eks` of a GitopsCluster. */
export interface EksClusterRef {
  clusterName: string;
  region: string;
  roleArn?: string;
}

/** AWS credentials, as the SDK's credential providers return them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/** What a reader needs to reach an EKS cluster. */
export interface EksConnection {
  /** `https://<id>.<xx>.<region>.eks.amazonaws.com`. */
  endpoint: string;
  /** `certificateAuthority.data`: base64 of the PEM CA bundle (kubeconfig `certificate-authority-data`). */
  caData: string;
  /** `k8s-aws-v1.…`. */
  token: string;
  /** When the API server stops accepting the token (ms since the epoch): 15 minutes after signing. */
  tokenExpiresAt: number;
}

/** The part of an EKS or STS client this module uses (a real client, or a stub in tests). */
export type EksApiClient = Pick<EKSClient, 'send'>;
export type StsApiClient = Pick<STSClient, 'send'>;

export interface EksAccessOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** The function's own credentials. Default: the AWS SDK's default provider chain. */
  credentials?: AwsCredentialsProvider;
  /** Makes the EKS client for a region, signing with `credentials`. Default `new EKSClient({ region, credentials })`. */
  eksClient?: (region: string, credentials: AwsCredentialsProvider) => EksApiClient;
  /** Makes the STS client (for AssumeRole) for a region. Default `new STSClient({ region, credentials })`. */
  stsClient?: (region: string, credentials: AwsCredentialsProvider) => StsApiClient;
  /** Deadline of each AWS call, in ms. Default 10 000. */
  timeoutMs?: number;
  /** How long DescribeCluster results are reused, in ms. Default 1 hour. */
  clusterTtlMs?: number;
  /** The RoleSessionName of assumed roles (shows up in CloudTrail). Default `pipeline-controller`. */
  roleSessionName?: string;
}

/** How long an EKS token is accepted after X-Amz-Date, whatever X-Amz-Expires says. */
export const EKS_TOKEN_LIFETIME_MS = 15 * 60_000;
/** How long a token is reused, as `aws eks get-token` and aws-iam-authenticator do. */
export const EKS_TOKEN_CACHE_MS = 14 * 60_000;
const TOKEN_PREFIX = 'k8s-aws-v1.';
/** Credentials closer than this to their expiry are not used to sign, and assumed roles are renewed. */
const CREDENTIALS_MARGIN_MS = 5 * 60_000;
const ASSUMED_ROLE_SECONDS = 3600;

/** The regional STS host that signs a token (partition-aware for the China regions). */
export function stsHostname(region: string): string {
  return `sts.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/**
 * An EKS bearer token: `k8s-aws-v1.` + base64url (no padding) of a presigned STS GetCallerIdentity GET URL with
 * `x-k8s-aws-id: <clusterName>` among the signed headers and X-Amz-Expires=60 (aws-iam-authenticator pkg/token).
 */
export async function createEksToken(input: {
  clusterName: string;
  region: string;
  credentials: AwsCredentials;
  signingDate: Date;
}): Promise<string> {
  const hostname = stsHostname(input.region);
  const signer = new SignatureV4({
    service: 'sts',
    region: input.region,
    credentials: input.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host: hostname, 'x-k8s-aws-id': input.clusterName },
  });
  const presigned = await signer.presign(request, { expiresIn: 60, signingDate: input.signingDate });
  const query = Object.entries(presigned.query ?? {})
    .flatMap(([name, value]) => (Array.isArray(value) ? value.map((item) => [name, item]) : [[name, value ?? '']]))
    .map(([name = '', value = '']) => `${rfc3986(name)}=${rfc3986(value)}`)
    .sort()
    .join('&');
  return TOKEN_PREFIX + Buffer.from(`https://${hostname}/?${query}`).toString('base64url');
}

function rfc3986(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

let defaultChain: Promise<AwsCredentialsProvider> | undefined;

/** The AWS SDK's default credential provider chain (env, web identity, ECS, IMDS…), memoized by the SDK. */
function defaultCredentials(): Promise<AwsCredentialsProvider> {
  defaultChain ??= import('@aws-sdk/client-sts').then(({ STSClient }) => new STSClient({}).config.credentials);
  return defaultChain;
}

interface Cached<T> {
  /** Reused until this time (ms). */
  until: number;
  promise: Promise<T>;
}

export class EksAccess {
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private readonly clusters = new Map<string, Cached<{ endpoint: string; caData: string }>>();
  private readonly tokens = new Map<string, Cached<{ token: string; tokenExpiresAt: number }>>();
  private readonly roles = new Map<string, Cached<AwsCredentials>>();
  private readonly eksClients = new Map<string, EksApiClient>();
  private readonly stsClients = new Map<string, StsApiClient>();

  constructor(private readonly options: EksAccessOptions = {}) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Endpoint, CA and a token valid for at least one more minute. Throws ClusterAccessError. */
  async connection(ref: EksClusterRef): Promise<EksConnection> {
    const [cluster, token] = await Promise.all([this.describe(ref), this.token(ref)]);
    return { ...cluster, ...token };
  }

  /** DescribeCluster's endpoint and CA, cached. */
  describe(ref: EksClusterRef): Promise<{ endpoint: string; caData: string }> {
    return this.cached(this.clusters, cacheKey(ref), async () => {
      const { DescribeClusterCommand, EKSClient } = await import('@aws-sdk/client-eks');
      const credentials = this.credentialsFor(ref);
      const client = this.client(this.eksClients, ref, () =>
        (this.options.eksClient ?? ((region, provider) => new EKSClient({ region, credentials: provider })))(
          ref.region,
          credentials,
        ),
      );
      const output = await this.aws(ref, 'DescribeCluster', (abortSignal) =>
        client.send(new DescribeClusterCommand({ name: ref.clusterName }), { abortSignal }),
      );
      const endpoint = output.cluster?.endpoint;
      const caData = output.cluster?.certificateAuthority?.data;
      if (!endpoint || !caData) {
        throw new ClusterAccessError(
          'unreachable',
          `${describeRef(ref)} has no endpoint or CA yet (status ${output.cluster?.status ?? 'unknown'})`,
        );
      }
      return { value: { endpoint, caData }, until: this.now() + (this.options.clusterTtlMs ?? 3_600_000) };
    });
  }

  /** A token, reused for 14 minutes (less when the signing credentials expire sooner). */
  token(ref: EksClusterRef): Promise<{ token: string; tokenExpiresAt: number }> {
    return this.cached(this.tokens, cacheKey(ref), async () => {
      const credentials = await this.resolveCredentials(ref);
      const signedAt = this.now();
      let token: string;
      try {
        token = await createEksToken({
          clusterName: ref.clusterName,
          region: ref.region,
          credentials,
          signingDate: new Date(signedAt),
        });
      } catch (error) {
        throw awsError(ref, 'signing the token', error, 'unauthorized');
      }
      const credentialsUntil = credentials.expiration
        ? credentials.expiration.getTime() - CREDENTIALS_MARGIN_MS
        : Infinity;
      return {
        value: { token, tokenExpiresAt: signedAt + EKS_TOKEN_LIFETIME_MS },
        until: Math.max(signedAt, Math.min(signedAt + EKS_TOKEN_CACHE_MS, credentialsUntil)),
      };
    });
  }

  /** Forgets the cached token of a cluster (e.g. after the API server refused it). */
  forgetToken(ref: EksClusterRef): void {
    this.tokens.delete(cacheKey(ref));
  }

  private credentialsFor(ref: EksClusterRef): AwsCredentialsProvider {
    return () => this.resolveCredentials(ref);
  }

  private async resolveCredentials(ref: EksClusterRef): Promise<AwsCredentials> {
    const base = this.options.credentials ?? (await defaultCredentials());
    const roleArn = ref.roleArn;
    if (!roleArn) {
      try {
        return await base();
      } catch (error) {
        throw awsError(ref, 'loading AWS credentials', error, 'unauthorized');
      }
    }
    return this.cached(this.roles, `${ref.region}|${roleArn}`, async () => {
      const { AssumeRoleCommand, STSClient } = await import('@aws-sdk/client-sts');
      const client = this.client(this.stsClients, { ...ref, roleArn: undefined }, () =>
        (this.options.stsClient ?? ((region, provider) => new STSClient({ region, credentials: provider })))(
          ref.region,
          base,
        ),
      );
      const output = await this.aws(ref, 'AssumeRole', (abortSignal) =>
        client.send(
          new AssumeRoleCommand({
            RoleArn: roleArn,
            RoleSessionName: this.options.roleSessionName ?? 'pipeline-controller',
            DurationSeconds: ASSUMED_ROLE_SECONDS,
          }),
          { abortSignal },
        ),
      );
      const assumed = output.Credentials;
      if (!assumed?.AccessKeyId || !assumed.SecretAccessKey) {
        throw new ClusterAccessError(
          'server-error',
          `${describeRef(ref)}: AssumeRole ${roleArn} returned no credentials`,
        );
      }
      const expiration = assumed.Expiration ?? new Date(this.now() + ASSUMED_ROLE_SECONDS * 1000);
      return {
        value: {
          accessKeyId: assumed.AccessKeyId,
          secretAccessKey: assumed.SecretAccessKey,
          sessionToken: assumed.SessionToken,
          expiration,
        },
        until: expiration.getTime() - CREDENTIALS_MARGIN_MS,
      };
    });
  }

  private client<T>(clients: Map<string, T>, ref: EksClusterRef, make: () => T): T {
    const key = `${ref.region}|${ref.roleArn ?? ''}`;
    let client = clients.get(key);
    if (!client) {
      client = make();
      clients.set(key, client);
    }
    return client;
  }

  /** Reuses a value until its time is up; concurrent callers share one computation; failures are not kept. */
  private cached<T>(cache: Map<string, Cached<T>>, key: string, make: () => Promise<{ value: T; until: number }>) {
    const hit = cache.get(key);
    if (hit && this.now() < hit.until) return hit.promise;
    const entry: Cached<T> = {
      until: Infinity,
      promise: make().then(
        ({ value, until }) => {
          entry.until = until;
          return value;
        },
        (error: unknown) => {
          if (cache.get(key) === entry) cache.delete(key);
          throw error;
        },
      ),
    };
    cache.set(key, entry);
    return entry.promise;
  }

  private async aws<T>(ref: EksClusterRef, action: string, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      return await call(controller.signal);
    } catch (error) {
      if (error instanceof ClusterAccessError) throw error;
      if (controller.signal.aborted) {
        throw new ClusterAccessError(
          'timeout',
          `${describeRef(ref)}: ${action} timed out after ${this.timeoutMs} ms`,
          undefined,
          {
            cause: error,
          },
        );
      }
      throw awsError(ref, action, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

function cacheKey(ref: EksClusterRef): string {
  return `${ref.region}|${ref.clusterName}|${ref.roleArn ?? ''}`;
}

function describeRef(ref: EksClusterRef): string {
  return `EKS cluster ${ref.clusterName} in ${ref.region}${ref.roleArn ? ` (as ${ref.roleArn})` : ''}`;
}

const UNAUTHORIZED = new Set([
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'CredentialsProviderError',
]);
const FORBIDDEN = new Set(['AccessDenied', 'AccessDeniedException', 'RegionDisabledException']);
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'EPIPE']);

/** An AWS SDK error as a ClusterAccessError; the message has the error's name and AWS's text (no credentials). */
function awsError(ref: EksClusterRef, action: string, error: unknown, fallback: ClusterErrorKind = 'server-error') {
  const details = error as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const name = details.name ?? 'Error';
  const status = details.$metadata?.httpStatusCode;
  let kind: ClusterErrorKind = fallback;
  if (name === 'ResourceNotFoundException') kind = 'bad-config';
  else if (UNAUTHORIZED.has(name)) kind = 'unauthorized';
  else if (FORBIDDEN.has(name)) kind = 'forbidden';
  else if (name === 'TimeoutError' || name === 'AbortError') kind = 'timeout';
  else if (NETWORK.has(details.code ?? '') || NETWORK.has(name)) kind = 'unreachable';
  else if (status !== undefined && status >= 500) kind = 'server-error';
  const text = (details.message ?? '').split('\n')[0]?.slice(0, 300);
  return new ClusterAccessError(
    kind,
    `${describeRef(ref)}: ${action} failed: ${name}${text ? `: ${text}` : ''}`,
    status,
    {
      cause: error,
    },
  );
}
