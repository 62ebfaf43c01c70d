import { createGitHubClient } from '../lib/promotion/github/client.js';
import { FakeGitHub } from '../lib/testing/fake-github.js';
import { FLEET_FILES, OWNER, REPO } from '../test/promotion/github-support.js';
const github = await FakeGitHub.start();
github.createRepository(OWNER, REPO, FLEET_FILES, { defaultBranch: 'main' });
const client = createGitHubClient(github.url, { kind: 'token', token: github.token });
const t = async (label: string, fn: () => Promise<unknown>) => {
  for (let i = 0; i < 3; i++) await fn();
  const n = 30;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, ((performance.now() - t0) / n).toFixed(2), 'ms');
};
await t('octokit getRef', () => client.git.getRef({ owner: OWNER, repo: REPO, ref: 'heads/main' }));
await t('raw fetch', async () => {
  const r = await fetch(`${github.url}/repos/${OWNER}/${REPO}/git/ref/heads/main`, {
    headers: { authorization: `token ${github.token}` },
  });
  await r.text();
});
await t('octokit.request raw no plugins', async () => {
  const { Octokit } = await import('@octokit/rest');
  const o = new Octokit({ baseUrl: github.url, auth: github.token });
  await o.git.getRef({ owner: OWNER, repo: REPO, ref: 'heads/main' });
});
await github.stop();
