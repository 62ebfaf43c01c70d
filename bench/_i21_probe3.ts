import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { FakeGitHub } from '../lib/testing/fake-github.js';
import { FLEET_FILES, OWNER, REPO } from '../test/promotion/github-support.js';
const github = await FakeGitHub.start();
github.createRepository(OWNER, REPO, FLEET_FILES, { defaultBranch: 'main' });
const throttle = { onSecondaryRateLimit: () => false, onRateLimit: () => false };
const variants = {
  none: new Octokit({ baseUrl: github.url, auth: github.token }),
  retry: new (Octokit.plugin(retry))({ baseUrl: github.url, auth: github.token }),
  throttling: new (Octokit.plugin(throttling))({ baseUrl: github.url, auth: github.token, throttle }),
  both: new (Octokit.plugin(retry, throttling))({ baseUrl: github.url, auth: github.token, throttle }),
};
for (const [label, o] of Object.entries(variants)) {
  const fn = () => o.git.getRef({ owner: OWNER, repo: REPO, ref: 'heads/main' });
  for (let i = 0; i < 3; i++) await fn();
  const n = 30;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, ((performance.now() - t0) / n).toFixed(2), 'ms');
}
await github.stop();
