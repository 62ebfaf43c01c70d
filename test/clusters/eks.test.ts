// EKS access: the token format (checked against an independent SigV4 computation), the caches, AssumeRole, and a
// reader that reaches the fake API server with the endpoint and CA of a (local, stubbed) DescribeCluster.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { EKSClient } from '@aws-sdk/client-eks';
import type { AssumeRoleCommand } from '@aws-sdk/client-sts';
import {
  ClusterAccessError,
  createEksToken,
  EksAccess,
  type AwsCredentials,
  type EksClusterRef,
  type StsApiClient,
} from '../../lib/clusters/index.js';
import { helmRelease } from '../fixtures/flux-objects.js';
import { appKey, CLUSTER, gitopsCluster, Registry, startFake } from './helpers.js';

const CREDENTIALS: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const SESSION: AwsCredentials = {
  accessKeyId: 'ASIAEXAMPLE',
  secretAccessKey: 'b1tOfS3cret/+xyz',
  sessionToken: 'FwoGZXIvYXdzEJr//////////wEaDH+session/token==',
};
const SIGNING_DATE = new Date('2026-11-21T12:34:56.789Z');
const ALLOWED = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
  'X-Amz-SignedHeaders',
]);

function decodeToken(token: string): URL {
  assert.ok(token.startsWith('k8s-aws-v1.'), 'prefix');
  const encoded = token.slice('k8s-aws-v1.'.length);
  assert.match(encoded, /^[A-Za-z0-9_-]+$/, 'base64url without padding');
  assert.ok(token.length <= 4096);
  return new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
}

/** SigV4 for a presigned GET, written from the AWS documentation with node:crypto only. */
function independentSignature(url: URL, secretAccessKey: string, clusterName: string): string {
  const encode = (value: string) =>
    encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  const params = [...url.searchParams]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const canonicalQuery = params.map(([name, value]) => `${name}=${value}`).join('&');
  const signedHeaders = url.searchParams.get('X-Amz-SignedHeaders') ?? '';
  const headers: Record<string, string> = { host: url.host, 'x-k8s-aws-id': clusterName };
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${headers[name]}\n`)
    .join('');
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  const canonicalRequest = ['GET', '/', canonicalQuery, canonicalHeaders, signedHeaders, sha256('')].join('\n');
  const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
  const [, day, region, service, terminator] = (url.searchParams.get('X-Amz-Credential') ?? '').split('/');
  const scope = `${day}/${region}/${service}/${terminator}`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  let key = hmac(`AWS4${secretAccessKey}`, day ?? '');
  key = hmac(key, region ?? '');
  key = hmac(key, service ?? '');
  key = hmac(key, terminator ?? '');
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

function checkToken(token: string, clusterName: string, region: string, credentials: AwsCredentials): URL {
  const url = decodeToken(token);
  assert.equal(url.protocol, 'https:');
  assert.equal(url.host, `sts.${region}.amazonaws.com`);
  assert.equal(url.pathname, '/');
  for (const name of url.searchParams.keys()) assert.ok(ALLOWED.has(name), `query parameter ${name} is not allowed`);
  assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
  assert.equal(url.searchParams.get('Version'), '2011-06-15');
  assert.equal(url.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
  assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
  assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
  const day = url.searchParams.get('X-Amz-Date')?.slice(0, 8);
  assert.equal(
    url.searchParams.get('X-Amz-Credential'),
    `${credentials.accessKeyId}/${day}/${region}/sts/aws4_request`,
  );
  assert.equal(url.searchParams.get('X-Amz-Security-Token'), credentials.sessionToken ?? null);
  assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
  assert.equal(
    url.searchParams.get('X-Amz-Signature'),
    independentSignature(url, credentials.secretAccessKey, clusterName),
    'the signature differs from an independent SigV4 computation',
  );
  return url;
}

describe('createEksToken', () => {
  it('is a presigned STS GetCallerIdentity URL with x-k8s-aws-id signed', async () => {
    const token = await createEksToken({
      clusterName: 'prod-eu',
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      signingDate: SIGNING_DATE,
    });
    const url = checkToken(token, 'prod-eu', 'eu-west-1', CREDENTIALS);
    assert.equal(url.searchParams.get('X-Amz-Date'), '20261121T123456Z');
    assert.ok(!token.includes('='));
  });

  it('carries the session token of temporary credentials, signed', async () => {
    const token = await createEksToken({
      clusterName: 'staging',
      region: 'us-east-2',
      credentials: SESSION,
      signingDate: SIGNING_DATE,
    });
    checkToken(token, 'staging', 'us-east-2', SESSION);
    // The cluster name is part of the signature: another name gives another token.
    const other = await createEksToken({
      clusterName: 'staging-2',
      region: 'us-east-2',
      credentials: SESSION,
      signingDate: SIGNING_DATE,
    });
    assert.notEqual(
      decodeToken(other).searchParams.get('X-Amz-Signature'),
      decodeToken(token).searchParams.get('X-Amz-Signature'),
    );
  });

  it('signs against the China partition host in cn- regions', async () => {
    const token = await createEksToken({
      clusterName: 'c',
      region: 'cn-north-1',
      credentials: CREDENTIALS,
      signingDate: SIGNING_DATE,
    });
    assert.equal(decodeToken(token).host, 'sts.cn-north-1.amazonaws.com.cn');
  });
});

// ---------------------------------------------------------------- EksAccess

/** A local stand-in for the EKS API (restJson: GET /clusters/{name}), used through a real EKSClient. */
async function startEksApi(
  t: TestContext,
  clusters: Record<string, { endpoint: string; caData: string }>,
): Promise<{ url: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '').replace(/^\/clusters\//, '').split('?')[0] ?? '');
    calls.push(`${request.method} ${request.url}`);
    const cluster = clusters[name];
    if (request.headers.authorization?.includes('Credential=AKIDDENIED/')) {
      response.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' });
      response.end(JSON.stringify({ message: 'User: arn:aws:sts::123456789012:assumed-role/x is not authorized' }));
      return;
    }
    if (!cluster) {
      response.writeHead(404, { 'content-type': 'application/json', 'x-amzn-errortype': 'ResourceNotFoundException' });
      response.end(JSON.stringify({ message: `No cluster found for name: ${name}.` }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        cluster: {
          name,
          arn: `arn:aws:eks:eu-west-1:123456789012:cluster/${name}`,
          endpoint: cluster.endpoint,
          certificateAuthority: { data: cluster.caData },
          status: 'ACTIVE',
          accessConfig: { authenticationMode: 'API' },
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

function localEksClient(url: string) {
  return (region: string, credentials: () => Promise<AwsCredentials>) =>
    new EKSClient({ region, credentials, endpoint: url, maxAttempts: 1 });
}

const REF: EksClusterRef = { clusterName: 'prod-eu', region: 'eu-west-1' };

describe('EksAccess', () => {
  it('reuses a token for 14 minutes, then signs a new one', async () => {
    let now = SIGNING_DATE.getTime();
    let credentialCalls = 0;
    const access = new EksAccess({
      now: () => now,
      credentials: () => {
        credentialCalls++;
        return Promise.resolve(CREDENTIALS);
      },
    });
    const first = await access.token(REF);
    checkToken(first.token, 'prod-eu', 'eu-west-1', CREDENTIALS);
    assert.equal(first.tokenExpiresAt, now + 15 * 60_000);
    now += 14 * 60_000 - 1;
    assert.equal((await access.token(REF)).token, first.token);
    assert.equal(credentialCalls, 1);
    now += 1;
    const second = await access.token(REF);
    assert.notEqual(second.token, first.token);
    assert.equal(decodeToken(second.token).searchParams.get('X-Amz-Date'), '20261121T124856Z');
    // Another cluster has its own token.
    const other = await access.token({ ...REF, clusterName: 'prod-us' });
    checkToken(other.token, 'prod-us', 'eu-west-1', CREDENTIALS);
  });

  it('signs again sooner when the credentials expire within the 14 minutes', async () => {
    let now = SIGNING_DATE.getTime();
    const expiring = { ...SESSION, expiration: new Date(now + 10 * 60_000) };
    const access = new EksAccess({ now: () => now, credentials: () => Promise.resolve(expiring) });
    const first = await access.token(REF);
    now += 5 * 60_000 - 1;
    assert.equal((await access.token(REF)).token, first.token);
    now += 1;
    assert.notEqual((await access.token(REF)).token, first.token);
  });

  it('assumes roleArn and signs with the role’s credentials, reusing them until shortly before they expire', async () => {
    let now = SIGNING_DATE.getTime();
    const assumed: Array<{ region: string; input: AssumeRoleCommand['input'] }> = [];
    const sts = (region: string): StsApiClient => ({
      send: (command: AssumeRoleCommand) => {
        assumed.push({ region, input: command.input });
        return Promise.resolve({
          Credentials: {
            AccessKeyId: `ASIAROLE${assumed.length}`,
            SecretAccessKey: 'role-secret',
            SessionToken: 'role-session-token',
            Expiration: new Date(now + 60 * 60_000),
          },
        });
      },
    });
    const access = new EksAccess({ now: () => now, credentials: () => Promise.resolve(CREDENTIALS), stsClient: sts });
    const ref = { ...REF, roleArn: 'arn:aws:iam::123456789012:role/flux-verifier' };
    const first = await access.token(ref);
    checkToken(first.token, 'prod-eu', 'eu-west-1', {
      accessKeyId: 'ASIAROLE1',
      secretAccessKey: 'role-secret',
      sessionToken: 'role-session-token',
    });
    assert.deepEqual(assumed, [
      {
        region: 'eu-west-1',
        input: { RoleArn: ref.roleArn, RoleSessionName: 'pipeline-controller', DurationSeconds: 3600 },
      },
    ]);
    now += 30 * 60_000; // a new token, the same role session
    checkToken((await access.token(ref)).token, 'prod-eu', 'eu-west-1', {
      accessKeyId: 'ASIAROLE1',
      secretAccessKey: 'role-secret',
      sessionToken: 'role-session-token',
    });
    assert.equal(assumed.length, 1);
    now += 26 * 60_000; // 4 minutes before the role session ends
    const third = await access.token(ref);
    assert.equal(decodeToken(third.token).searchParams.get('X-Amz-Credential')?.split('/')[0], 'ASIAROLE2');
  });

  it('maps DescribeCluster failures: unknown cluster → bad-config, denied → forbidden', async (t) => {
    const eks = await startEksApi(t, {});
    const access = new EksAccess({
      credentials: () => Promise.resolve(CREDENTIALS),
      eksClient: localEksClient(eks.url),
    });
    await assert.rejects(access.connection({ clusterName: 'nope', region: 'eu-west-1' }), (error) => {
      assert.ok(error instanceof ClusterAccessError);
      assert.equal(error.kind, 'bad-config');
      assert.match(error.message, /^EKS cluster nope in eu-west-1: DescribeCluster failed: ResourceNotFoundException/);
      return true;
    });
    const denied = new EksAccess({
      credentials: () => Promise.resolve({ ...CREDENTIALS, accessKeyId: 'AKIDDENIED' }),
      eksClient: localEksClient(eks.url),
    });
    await assert.rejects(denied.connection(REF), (error) => {
      assert.ok(error instanceof ClusterAccessError);
      assert.equal(error.kind, 'forbidden');
      assert.ok(!error.message.includes(CREDENTIALS.secretAccessKey));
      return true;
    });
  });

  it('feeds endpoint and CA from DescribeCluster into a reader that reads over HTTPS with the token', async (t) => {
    let now = SIGNING_DATE.getTime();
    const tokens: string[] = [];
    const fake = await startFake(t, {
      objects: [helmRelease()],
      authenticate: (token) => {
        if (!token.startsWith('k8s-aws-v1.')) return undefined;
        // What aws-iam-authenticator checks before it asks STS: the URL form and the signed cluster name.
        checkToken(token, 'prod-eu', 'eu-west-1', CREDENTIALS);
        tokens.push(token);
        return { name: 'arn:aws:sts::123456789012:assumed-role/verifier/pipeline-controller' };
      },
    });
    const eks = await startEksApi(t, { 'prod-eu': { endpoint: fake.url, caData: fake.caData } });
    const access = new EksAccess({
      now: () => now,
      credentials: () => Promise.resolve(CREDENTIALS),
      eksClient: localEksClient(eks.url),
    });
    const registry = new Registry();
    registry.setCluster(gitopsCluster(CLUSTER, { eks: { clusterName: 'prod-eu', region: 'eu-west-1' } }));
    const reader = registry.reader({ eksTokens: access });

    const key = appKey('HelmRelease', 'apps', 'podinfo');
    const hr = await reader.getApp(key);
    assert.equal(hr?.apiVersion, 'helm.toolkit.fluxcd.io/v2');
    assert.ok(await reader.getApp(key));
    assert.equal((await reader.listApps(CLUSTER, 'HelmRelease', [])).length, 1);
    assert.deepEqual(eks.calls, ['GET /clusters/prod-eu']);
    assert.equal(new Set(tokens).size, 1);

    // 14 minutes later: a fresh token, the same cluster data and discovery.
    now += 14 * 60_000;
    assert.ok(await reader.getApp(key));
    assert.equal(new Set(tokens).size, 2);
    assert.equal(tokens.at(-1), (await access.token(REF)).token);
    assert.equal(eks.calls.length, 1);
    assert.equal(fake.count('discovery'), 1);
  });

  it('reports EKS failures as the reader’s, naming the GitopsCluster', async (t) => {
    const eks = await startEksApi(t, {});
    const registry = new Registry();
    registry.setCluster(gitopsCluster(CLUSTER, { eks: { clusterName: 'gone', region: 'eu-west-1' } }));
    const reader = registry.reader({
      eksTokens: new EksAccess({ credentials: () => Promise.resolve(CREDENTIALS), eksClient: localEksClient(eks.url) }),
    });
    await assert.rejects(reader.getApp(appKey('HelmRelease', 'apps', 'podinfo')), (error) => {
      assert.ok(error instanceof ClusterAccessError);
      assert.equal(error.kind, 'bad-config');
      assert.match(
        error.message,
        /^cluster flux-system\/prod-eu: EKS cluster gone in eu-west-1: DescribeCluster failed/,
      );
      return true;
    });
  });
});
