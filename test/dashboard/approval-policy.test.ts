// The dashboard's approvals and rejections under an approval policy (docs/approval-policies.md), over HTTP on a real
// local data directory: staging requires two of two listed users. What the pipeline page shows at each step (the
// count with who approved, who rejected and why), the Reject confirmation and its required reason, and the refusals:
// an unlisted user, a rejected revision, a form without the page's token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOCAL_IDENTITY, OTHER_USER } from '../cli/approval-fixtures.js';
import { PIPELINE } from '../cli/fixtures.js';
import { FORM, startDashboardWorld, type DashboardWorld } from './world.js';

const OTHER = `local:${OTHER_USER}`;
const ME = LOCAL_IDENTITY.slice('local:'.length);

describe('the dashboard under an approval policy', { concurrency: false }, () => {
  let world: DashboardWorld;
  let base = '';
  let origin = '';
  const page = (path: string) => world.send(path);
  const pipelinePath = '/pipelines/flux-system/podinfo';
  const approvePath = `${pipelinePath}/environments/staging/approve`;
  const rejectPath = `${pipelinePath}/environments/staging/reject`;
  /** The staging section of the pipeline page. */
  const staging = async () => {
    const { body } = await page(pipelinePath);
    const section = /<section class="environment" id="env-staging"[\s\S]*?<\/section>/.exec(body)?.[0];
    assert.ok(section, 'the page has a staging section');
    return section;
  };
  /** The page's text without markup or runs of white space, as a person reads it. */
  const text = (markup: string) =>
    markup
      .replace(/<[^>]+>/g, '')
      .replace(/&#39;/g, "'")
      .replace(/\s+/g, ' ')
      .trim();
  const tokenOf = async (path: string): Promise<string> => {
    const confirmation = await page(`${path}?revision=6.9.2`);
    const token = /name="csrf" value="([^"]+)"/.exec(confirmation.body)?.[1];
    assert.ok(token, 'the confirmation page carries the form token');
    return token;
  };
  const post = async (path: string, fields: Record<string, string>) =>
    world.send(path, {
      method: 'POST',
      headers: { ...FORM, origin, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ revision: '6.9.2', csrf: await tokenOf(path), ...fields }).toString(),
    });
  const marker = () => world.backend.store.getApproval(PIPELINE, 'staging');

  before(async () => {
    world = await startDashboardWorld({
      stagingApproval: `{ required: 2, approvers: { users: [${OTHER_USER}, ${ME}] } }`,
    });
    base = world.dashboard.url;
    origin = base.replace(/\/$/, '');
  });
  after(() => world.close());

  it('a waiting environment shows the count, Approve and Reject', async () => {
    const section = await staging();
    assert.match(text(section), /6\.9\.2 waits for approval since .* 0 of 2 approvals Approve 6\.9\.2 Reject 6\.9\.2/);
    assert.ok(section.includes(`href="${approvePath}?revision=6.9.2"`));
    assert.ok(section.includes(`href="${rejectPath}?revision=6.9.2"`));
  });

  it('the first approval is counted: back to the page, "1 of 2 approvals (local:…)", nothing handed on', async () => {
    world.actAs(OTHER);
    const answer = await post(approvePath, {});
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.location, `${pipelinePath}?note=counted#env-staging`);
    assert.deepEqual(world.pending, []);
    assert.match(text(await staging()), new RegExp(`1 of 2 approvals \\(${OTHER}\\) Approve 6\\.9\\.2`));
    const noted = await page(`${pipelinePath}?note=counted`);
    assert.match(noted.body, /Your approval is counted\./);
  });

  it('a user the policy does not list is refused, naming the user and the list; nothing changes', async () => {
    world.actAs('local:mallory');
    const before = await marker();
    for (const [path, fields] of [
      [approvePath, {}],
      [rejectPath, { reason: 'no' }],
    ] as const) {
      const answer = await post(path, fields);
      assert.equal(answer.status, 403, path);
      assert.match(
        text(answer.body),
        /local:mallory may not approve: not in the environment's approval\.approvers\.users/,
      );
    }
    assert.deepEqual(await marker(), before);
    assert.deepEqual(world.pending, []);
  });

  it('the Reject confirmation names the revision and requires a reason', async () => {
    const confirmation = await page(`${rejectPath}?revision=6.9.2`);
    assert.equal(confirmation.status, 200);
    assert.match(text(confirmation.body), /Reject revision 6\.9\.2 for environment staging of flux-system\/podinfo/);
    assert.match(confirmation.body, /<input\s+type="text"\s+id="reject-reason"\s+name="reason"\s+required/);
    assert.match(confirmation.body, new RegExp(`<form method="post" action="${rejectPath}">`));

    world.actAs(undefined);
    for (const reason of ['', '   ', 'two\nlines']) {
      const answer = await post(rejectPath, { reason });
      assert.equal(answer.status, 400, JSON.stringify(reason));
    }
    assert.equal((await marker())?.rejectedAt, undefined);
  });

  it('refuses a rejection without the page token or from another origin', async () => {
    const token = await tokenOf(rejectPath);
    const attempts: [string, Record<string, string>, string][] = [
      ['no token', { ...FORM, origin }, 'revision=6.9.2&reason=x'],
      ['another origin', { ...FORM, origin: 'http://evil.example' }, `revision=6.9.2&reason=x&csrf=${token}`],
    ];
    for (const [what, headers, body] of attempts) {
      const answer = await world.send(rejectPath, { method: 'POST', headers, body });
      assert.equal(answer.status, 403, what);
    }
    assert.equal((await marker())?.rejectedAt, undefined);
  });

  it('a rejection: the page shows who rejected and why, without Approve; a later approval is refused', async () => {
    const answer = await post(rejectPath, { reason: 'breaks <checkout> (INC-7)' });
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.location, `${pipelinePath}?note=rejected#env-staging`);

    const section = await staging();
    assert.match(section, /data-state="rejected"/);
    assert.match(
      text(section),
      new RegExp(`6\\.9\\.2 rejected .* ago by ${LOCAL_IDENTITY}: breaks &lt;checkout&gt; \\(INC-7\\)`),
    );
    assert.ok(!section.includes('Approve 6.9.2'), 'no Approve button for a rejected revision');
    assert.ok(!section.includes('<checkout>'), 'the reason is shown as text');

    const approval = await post(approvePath, {});
    assert.equal(approval.status, 409);
    assert.match(
      text(approval.body),
      new RegExp(`6\\.9\\.2 was rejected for flux-system/podinfo staging by ${LOCAL_IDENTITY}`),
    );
    assert.deepEqual(world.pending, []);

    const history = await page('/history?type=rejected&pipeline=flux-system%2Fpodinfo');
    assert.match(history.body, new RegExp(`by <span class="actor">${LOCAL_IDENTITY}</span>`));
  });
});
