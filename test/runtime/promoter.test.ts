// The promoter the verifier builds (lib/runtime/promoter.ts), whose Git host clients are loaded on the first
// promotion to each host: a promotion on every host opens its pull request as before, and loading the
// verifier's code loads none of the Git host clients.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { createPromoter, type PromotionSettings } from '../../lib/runtime/promoter.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { prRequest } from '../promotion/github-support.js';
import { HOSTS, MARKED_FILES, SECRET } from '../promotion/pull-request-subject.js';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

const API_URL_SETTING: Record<GitProviderType, keyof PromotionSettings> = {
  github: 'githubApiUrl',
  gitlab: 'gitlabApiUrl',
  'bitbucket-server': 'bitbucketServerApiUrl',
  'azure-devops': 'azureDevOpsApiUrl',
};

/** The packages of the Git host clients, as they appear in a resolved module URL. */
const GIT_HOST_CLIENTS = [
  '/node_modules/@octokit/',
  '/node_modules/@gitbeaker/',
  '/node_modules/azure-devops-node-api/',
];

describe('createPromoter', () => {
  for (const [type, start] of HOSTS) {
    it(`opens the pull request on ${type}, its client loaded on that first promotion`, async () => {
      const fake = await start();
      try {
        fake.createRepository(MARKED_FILES);
        const promoter = createPromoter({
          secrets: new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]),
          [API_URL_SETTING[type]]: fake.apiUrl,
          githubWriteIntervalMs: 0,
        });
        const request = prRequest({ revision: '6.9.2', type, url: fake.repositoryUrl, secretName: SECRET.name });

        const { result } = await promoter.promote(request);

        const pulls = fake.pullRequests();
        assert.deepEqual(
          pulls.map((pull) => [pull.title, pull.state, pull.source, pull.target]),
          [['Promote foo/bar in prod to 6.9.2', 'open', 'promotion-foo-bar-prod', 'main']],
        );
        assert.equal(result, pulls[0]?.url);
        assert.match(fake.files('promotion-foo-bar-prod')['apps/prod/helmrelease.yaml'] ?? '', /version: "6\.9\.2"/);
      } finally {
        await fake.stop();
      }
    });
  }

  it('is built, with the verifier around it, without loading any Git host client', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'promoter-loads-'));
    try {
      const log = path.join(dir, 'resolved.txt');
      // Records every module the process resolves (a dynamic import is resolved only when it runs), then loads the
      // verifier's composition root and builds the promoter, as the Lambda's first message does.
      const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n');
  return resolved;
}`;
      const script = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
await import('./lib/runtime/verifier.ts');
const { createPromoter } = await import('./lib/runtime/promoter.ts');
const { StaticSecretSource } = await import('./lib/secrets/port.ts');
createPromoter({ secrets: new StaticSecretSource([]) });`;
      await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
        cwd: ROOT,
        timeout: 20_000,
      });
      const resolved = (await readFile(log, 'utf8')).split('\n');

      // The hook saw the verifier's own dependencies (the store's AWS SDK client), so it would have seen a Git host
      // client. The Kubernetes client, too, is loaded only at the first cluster read.
      assert.ok(resolved.some((url) => url.includes('/node_modules/@aws-sdk/client-dynamodb/')));
      assert.ok(!resolved.some((url) => url.includes('/node_modules/@kubernetes/client-node/')));
      assert.ok(resolved.some((url) => url.endsWith('/lib/runtime/promoter.ts')));
      assert.deepEqual(
        resolved.filter((url) => GIT_HOST_CLIENTS.some((client) => url.includes(client))),
        [],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
