// The dashboard over HTTP, as a browser or another web page would reach it, on a real local data directory: what the
// pages show (and never show), and which approval requests it refuses: another site's, a forged Host, no token.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startDashboard, NonLoopbackHostError } from '../../lib/cli/dashboard/server.js';
import { PIPELINE } from '../cli/fixtures.js';
import { FORM, HOSTILE_MESSAGE, SECRET_VALUES, send, startDashboardWorld, type DashboardWorld } from './world.js';

describe('the dashboard over HTTP', { concurrency: false }, () => {
  let world: DashboardWorld;
  let base = '';
  const page = (path: string) => world.send(path);
  const approvalPath = '/pipelines/flux-system/podinfo/environments/staging/approve';
  const tokenOf = async (): Promise<string> => {
    const confirmation = await page(`${approvalPath}?revision=6.9.2`);
    const token = /name="csrf" value="([^"]+)"/.exec(confirmation.body)?.[1];
    assert.ok(token, 'the confirmation page carries the form token');
    return token;
  };
  const marker = () => world.backend.store.getApproval(PIPELINE, 'staging');

  before(async () => {
    world = await startDashboardWorld();
    base = world.dashboard.url;
  });
  after(() => world.close());

  it('listens on 127.0.0.1 and refuses to listen anywhere else', async () => {
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    await assert.rejects(
      startDashboard({ backend: world.backend, host: '0.0.0.0', logger: console }),
      NonLoopbackHostError,
    );
  });

  it('the fleet page lists the pipeline and counts the waiting approval', async () => {
    const fleet = await page('/');
    assert.equal(fleet.status, 200);
    assert.match(fleet.body, /href="\/pipelines\/flux-system\/podinfo">flux-system\/podinfo</);
    assert.match(fleet.body, /1 pipeline, 1 approval waiting/);
    assert.match(fleet.body, /staging: <span class="state state-waiting-approval">waiting-approval<\/span>/);
  });

  it("shows a leaf cluster's markup as text, and no Secret value on any page", async () => {
    const pipeline = await page('/pipelines/flux-system/podinfo');
    assert.equal(pipeline.status, 200);
    assert.ok(!pipeline.body.includes(HOSTILE_MESSAGE), 'the message is not markup');
    assert.ok(pipeline.body.includes('&lt;script&gt;window.pwned = true&lt;/script&gt;&lt;b&gt;deployed&lt;/b&gt;'));
    for (const path of ['/', '/pipelines/flux-system/podinfo', '/history', `${approvalPath}?revision=6.9.2`]) {
      const { body } = await page(path);
      for (const secret of SECRET_VALUES) assert.ok(!body.includes(secret), `${path} shows ${secret}`);
    }
  });

  it('every page forbids scripts from elsewhere, inline scripts and framing', async () => {
    const { headers } = await page('/');
    assert.match(String(headers['content-security-policy']), /script-src 'self'/);
    assert.match(String(headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(headers['x-content-type-options'], 'nosniff');
  });

  it('answers only requests addressed to a loopback name (no DNS rebinding)', async () => {
    const rebound = await world.send('/', { headers: { host: `evil.example:${world.dashboard.port}` } });
    assert.equal(rebound.status, 421);
    const localhost = await world.send('/', { headers: { host: `localhost:${world.dashboard.port}` } });
    assert.equal(localhost.status, 200);
  });

  it("refuses an approval without the page's token, from another site or another origin; nothing is approved", async () => {
    const token = await tokenOf();
    const origin = base.replace(/\/$/, '');
    const attempts: [string, Record<string, string>, string][] = [
      ['no token', { ...FORM, origin }, 'revision=6.9.2'],
      ['a wrong token', { ...FORM, origin }, 'revision=6.9.2&csrf=guessed'],
      ['another site', { ...FORM, 'sec-fetch-site': 'cross-site' }, `revision=6.9.2&csrf=${token}`],
      ['another origin', { ...FORM, origin: 'http://evil.example' }, `revision=6.9.2&csrf=${token}`],
    ];
    for (const [what, headers, body] of attempts) {
      const answer = await world.send(approvalPath, { method: 'POST', headers, body });
      assert.equal(answer.status, 403, what);
    }
    assert.equal((await marker())?.approvedAt, undefined, 'still waiting');
    assert.deepEqual(world.pending, []);
  });

  it('a wrong revision is refused; the right one, with the token from the same origin, is approved as the caller', async () => {
    const token = await tokenOf();
    const origin = base.replace(/\/$/, '');
    const post = (revision: string) =>
      world.send(approvalPath, {
        method: 'POST',
        headers: { ...FORM, origin, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ revision, csrf: token }).toString(),
      });
    assert.equal((await post('6.9.1')).status, 409);
    const approved = await post('6.9.2');
    assert.equal(approved.status, 303);
    assert.equal(approved.headers.location, '/pipelines/flux-system/podinfo#env-staging');
    const now = await marker();
    assert.equal(now?.approvedBy, `local:${userInfo().username}`);
    assert.deepEqual(world.pending, [{ type: 'promote', pipeline: PIPELINE, env: 'staging', revision: '6.9.2' }]);
  });

  it('the history filters by type and refuses a type it does not have', async () => {
    const approvals = await page('/history?type=approved&pipeline=flux-system%2Fpodinfo');
    assert.equal(approvals.status, 200);
    assert.equal([...approvals.body.matchAll(/<li data-type="([^"]+)"/g)].map((m) => m[1]).join(), 'approved');
    assert.match(approvals.body, new RegExp(`by <span class="actor">local:${userInfo().username}</span>`));
    assert.equal((await page('/history?type=%3Cscript%3E')).status, 400);
  });
});
