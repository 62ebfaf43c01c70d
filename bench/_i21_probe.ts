// scratch probe (deleted after): request timeline of promotions with Octokit's default write spacing.
import { GitHubPullRequestPromoter } from '../lib/promotion/github/index.js';
import { StaticSecretSource } from '../lib/secrets/port.js';
import { FakeGitHub, type FakeGitHubRequest } from '../lib/testing/fake-github.js';
import { prRequest, FLEET_FILES, OWNER, REPO, SECRET } from '../test/promotion/github-support.js';

const spaced = process.argv[2] !== 'fast';
const log: { at: number; r: FakeGitHubRequest }[] = [];
const github = await FakeGitHub.start({
  latencyMs: (r) => {
    log.push({ at: performance.now(), r });
    return 0;
  },
});
github.createRepository(OWNER, REPO, FLEET_FILES, { defaultBranch: 'main' });
const secrets = new StaticSecretSource([{ key: SECRET, values: { token: github.token } }]);
const promoter = new GitHubPullRequestPromoter({
  secrets,
  apiUrl: github.url,
  ...(spaced ? {} : { writeIntervalMs: 0 }),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function run(label: string, revision: string) {
  log.length = 0;
  const t0 = performance.now();
  const out = await promoter.promote(prRequest({ revision }));
  const total = performance.now() - t0;
  const writes = log.filter((e) => e.r.method !== 'GET').length;
  console.log(`${label}: ${total.toFixed(0)} ms, ${log.length} requests, ${writes} writes -> ${out.result}`);
  for (const e of log) console.log(`  +${(e.at - t0).toFixed(0).padStart(5)} ${e.r.method} ${e.r.route ?? e.r.path}`);
}
await run('first', '5.0.1');
await sleep(3500);
await run('update open PR', '5.0.2');
await sleep(3500);
github.merge(OWNER, REPO, github.pulls(OWNER, REPO)[0]!.number, { mergeCommit: true });
await run('after merge', '5.0.3');
await sleep(3500);
await run('same again', '5.0.3');
await github.stop();
