// The dashboard over HTTP, as a browser or another web page would reach it, on a real local data directory: what the
// pages show (and never show), and which approval requests it refuses: another site's, a forged Host, no token.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { userInfo } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startDashboard, NonLoopbackHostError } from '../../lib/cli/dashboard/server.js';
import { PIPELINE } from '../cli/fixtures.js';
import { ENVIRONMENT_STATE_MEANINGS, ENVIRONMENT_STATE_WORDS } from '../../lib/views/state-words.js';
import { FORM, HOSTILE_MESSAGE, SECRET_VALUES, send, startDashboardWorld, type DashboardWorld } from './world.js';

/** What a person reads of a piece of a page: its text, markup gone, entities read, spaces collapsed. */
function textOf(markup: string): string {
  return markup
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The fleet's rows in the order shown, each with its environments' lines as text, by environment. */
function fleetRows(body: string): { pipeline: string; environments: Record<string, string> }[] {
  return [...body.matchAll(/<tr data-pipeline="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)].map((row) => ({
    pipeline: row[1] ?? '',
    environments: Object.fromEntries(
      [...(row[2] ?? '').matchAll(/<li data-env="([^"]+)">([\s\S]*?)<\/li>/g)].map((env) => [
        env[1] ?? '',
        textOf(env[2] ?? ''),
      ]),
    ),
  }));
}

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
    world = await startDashboardWorld({ healthyPipeline: true });
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

  it('the fleet page lists the pipelines and counts the waiting approval', async () => {
    const fleet = await page('/');
    assert.equal(fleet.status, 200);
    assert.match(fleet.body, /href="\/pipelines\/flux-system\/podinfo">flux-system\/podinfo</);
    assert.match(fleet.body, /2 pipelines, 1 approval waiting/);
    assert.match(
      fleet.body,
      /<span class="state state-waiting-approval" title="waiting-approval">waits for approval<\/span>/,
    );
    assert.doesNotMatch(fleet.body, /Config sources/, 'no ConfigSource is stored: no section for them');
  });

  it('a fleet row per pipeline, the one waiting for a person first: each environment, its revision, since when, its state in words', async () => {
    const { body } = await page('/');
    // api is stored first and needs no one: podinfo, whose staging waits for an approval, comes before it.
    assert.deepEqual(
      fleetRows(body).map((row) => row.pipeline),
      ['flux-system/podinfo', 'flux-system/api'],
    );
    const [podinfo, api] = fleetRows(body);
    assert.deepEqual(Object.keys(podinfo?.environments ?? {}), ['dev', 'staging', 'prod'], 'in promotion order');
    assert.match(podinfo?.environments.dev ?? '', /^dev 6\.9\.2 since \d+[sm] ago source \(CandidateFound\)$/);
    assert.match(
      podinfo?.environments.staging ?? '',
      /^staging 6\.9\.1 since \d+[sm] ago waits for approval \(AwaitingApproval\)$/,
    );
    // Not reached, and nothing wrong with it: prod says what it waits for.
    assert.match(
      podinfo?.environments.prod ?? '',
      /^prod 6\.9\.1 since \d+[sm] ago waits for staging \(StoppedEarlier\)$/,
    );
    assert.deepEqual(api?.environments, {
      dev: 'dev 2.4.0 since 3h ago source (CandidateFound)',
      staging: 'staging 2.4.0 since 2h ago passed (AllTargetsReady)',
      prod: 'prod 2.4.0 since 1h ago passed (AllTargetsReady)',
    });
    assert.match(body, /<tr data-pipeline="flux-system\/podinfo" data-needs-person="yes">/);
    assert.match(body, /<tr data-pipeline="flux-system\/api" data-needs-person="no">/);
  });

  it('the fleet page has a legend: every state in the words its badge uses, with what it means', async () => {
    const { body } = await page('/');
    const legend = /<details class="legend" id="state-legend">([\s\S]*?)<\/details>/.exec(body)?.[1];
    assert.ok(legend, 'the page has the legend');
    assert.match(textOf(legend), /^What the states mean /);
    const entries = [...legend.matchAll(/<div data-state="([^"]+)">([\s\S]*?)<\/div>/g)].map(
      (entry): [string, string] => [entry[1] ?? '', textOf(entry[2] ?? '')],
    );
    assert.deepEqual(
      entries.map(([state]) => state),
      Object.keys(ENVIRONMENT_STATE_WORDS),
      'every state, none twice',
    );
    const said = new Map(entries);
    assert.equal(said.get('waiting-approval'), `waits for approval ${ENVIRONMENT_STATE_MEANINGS['waiting-approval']}`);
    assert.match(said.get('not-reached') ?? '', /^waits for … An earlier environment, named in the words/);
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

  it("answers nothing but 401 without the owner's cookie: no page, asset, form or event stream", async () => {
    const csrf = await tokenOf();
    const origin = base.replace(/\/$/, '');
    const cookieName = world.ownerCookie.split('=')[0] ?? '';
    const requests: [string, { method?: string; headers?: Record<string, string>; body?: string }][] = [
      ['/', {}],
      ['/pipelines/flux-system/podinfo', {}],
      [`${approvalPath}?revision=6.9.2`, {}],
      ['/pipelines/flux-system/podinfo/freeze', {}],
      ['/history', {}],
      ['/metrics', {}],
      ['/events', {}],
      ['/assets/dashboard.js', {}],
      ['/no/such/page', {}],
      // The form token is the page's; without the cookie it is worth nothing.
      [approvalPath, { method: 'POST', headers: { ...FORM, origin }, body: `revision=6.9.2&csrf=${csrf}` }],
      [
        '/pipelines/flux-system/podinfo/freeze',
        { method: 'POST', headers: { ...FORM, origin }, body: `env=prod&reason=x&csrf=${csrf}` },
      ],
    ];
    for (const cookie of [undefined, `${cookieName}=guessed`, 'theme=dark']) {
      for (const [path, options] of requests) {
        const what = `${options.method ?? 'GET'} ${path} with ${cookie ?? 'no cookie'}`;
        const headers = { ...options.headers, ...(cookie === undefined ? {} : { cookie }) };
        const answer = await send(new URL(path, base).href, { ...options, headers });
        assert.equal(answer.status, 401, what);
        assert.equal(answer.headers['set-cookie'], undefined, what);
        assert.match(
          answer.body,
          /^This dashboard is its owner.s only\. Open the URL that pipelinectl printed|cookie is not this dashboard/,
          what,
        );
        assert.doesNotMatch(answer.body, /podinfo|flux-system|staging|6\.9\.|csrf/, what);
      }
    }
    assert.equal((await marker())?.approvedAt, undefined, 'still waiting');
    assert.deepEqual(await world.backend.store.listFreezes(), []);
    assert.deepEqual(world.pending, []);
  });

  it('opening the printed URL sets the cookie and lands on the page without the token; a wrong token is refused', async () => {
    const opened = await send(world.dashboard.ownerUrl);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.location, '/');
    assert.match(String(opened.headers['set-cookie']), /; HttpOnly; SameSite=Strict; Path=\/$/);
    const wrong = await send(`${base}?token=${'A'.repeat(43)}`);
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /The token in this URL is not this dashboard.s/);
    assert.equal(wrong.headers['set-cookie'], undefined);
    // The event stream is the owner's too.
    const events = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/events', base), { headers: { cookie: world.ownerCookie } }, (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(events, 200);
  });

  it('shows only the notes it knows: ?note=constructor and the like show none', async () => {
    for (const note of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const { status, body } = await page(`/pipelines/flux-system/podinfo?note=${note}`);
      assert.equal(status, 200, note);
      assert.doesNotMatch(body, /native code|function |\[object /, note);
    }
    const known = await page('/pipelines/flux-system/podinfo?note=rejected');
    assert.match(known.body, /Rejected\. The revision is not promoted into this environment\./);
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

  it('a page answers GET and HEAD, a form also POST; other methods and unreadable paths find nothing', async () => {
    const pipelinePath = '/pipelines/flux-system/podinfo';
    const cases: [method: string, path: string, status: number, says: RegExp | undefined][] = [
      ['HEAD', '/', 200, undefined],
      ['HEAD', pipelinePath, 200, undefined],
      ['HEAD', `${approvalPath}?revision=6.9.2`, 200, undefined],
      ['POST', '/', 404, /The dashboard has no such page\./],
      ['POST', pipelinePath, 404, /The dashboard has no such page\./],
      ['GET', `${pipelinePath}/`, 404, /The dashboard has no such page\./],
      ['GET', '/pipelines//podinfo', 404, /The dashboard has no such page\./],
      ['DELETE', approvalPath, 405, /method not allowed/],
      ['PUT', `${pipelinePath}/freeze`, 405, /method not allowed/],
      ['GET', '/pipelines/%/podinfo', 404, /No such pipeline in /],
      ['POST', '/pipelines/%/podinfo', 404, /The dashboard has no such page\./],
      ['DELETE', '/pipelines/flux-system/podinfo/environments/%/reject', 404, /No such pipeline or environment\./],
      ['DELETE', '/pipelines/%/podinfo/unfreeze', 404, /No such pipeline\./],
    ];
    for (const [method, path, status, says] of cases) {
      const answer = await world.send(path, { method });
      const what = `${method} ${path}`;
      assert.equal(answer.status, status, what);
      if (says === undefined) assert.equal(answer.body, '', what);
      else assert.match(answer.body, says, what);
      if (status === 405) assert.equal(answer.headers.allow, 'GET, POST', what);
    }
    assert.equal((await marker())?.approvedAt, undefined, 'nothing approved');
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
