// `pipelinectl apply` of a Pipeline whose pull-request URL holds a user name or password: the URL would carry the
// credential into the stored configuration, `status`, pull request bodies and logs, so the file is refused with the
// file, line, document and field named, the credential not repeated, and nothing stored. The same URL without the
// user information applies.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, pipeline, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';

const PASSWORD = 'hunter2-in-the-url';
const CLEAN_URL = "url: 'https://github.com/acme/fleet'";

describe('pipelinectl apply of a URL with user information', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  const path = (file: string) => join(root, file);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-userinfo-'));
    dataDir = path('data');
    const withUrl = (url: string) => pipeline('apps-prod').replace(CLEAN_URL, `url: '${url}'`);
    await writeFiles(root, {
      'clusters.yaml': `${CLUSTERS}\n---\n${SECRETS}`,
      'password/pipeline.yaml': withUrl(`https://deploy:${PASSWORD}@github.com/acme/fleet`),
      'user/pipeline.yaml': withUrl('https://git@github.com/acme/fleet'),
      'clean/pipeline.yaml': pipeline('apps-prod'),
    });
    assert.equal((await cli('apply', '-f', path('clusters.yaml'))).code, 0);
  });
  after(() => rm(root, { recursive: true, force: true }));

  for (const [name, file] of [
    ['a user and password', 'password/pipeline.yaml'],
    ['a user name alone', 'user/pipeline.yaml'],
  ] as const) {
    it(`refuses a pull-request URL with ${name}, naming the file, document and field, and stores nothing`, async () => {
      for (const dryRun of [['--dry-run'], []]) {
        const run = await cli('apply', '-f', path(file), ...dryRun);
        assert.equal(run.code, 1, run.stdout);
        assert.equal(run.stdout, '');
        assert.deepEqual(
          lines(run.stderr).filter((line) => line.startsWith(path(file))),
          [
            `${path(file)}:15:41: Pipeline flux-system/podinfo: spec.environments[1].promotion.strategy.pull-request.url: ` +
              'must not hold a user name or password (user:password@ before the host): the credentials go in the Secret named by secretRef',
          ],
        );
        assert.doesNotMatch(run.stderr, new RegExp(PASSWORD));
      }
      const stored = await cli('get', 'pipelines');
      assert.equal(stored.stdout, '');
    });
  }

  it('applies the same pipeline without the user information', async () => {
    const run = await cli('apply', '-f', path('clean/pipeline.yaml'));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lines(run.stdout)[0], 'pipeline flux-system/podinfo created');
  });
});
