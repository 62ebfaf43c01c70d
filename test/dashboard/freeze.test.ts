// The stop switch on the dashboard, over HTTP on a real local data directory: the pipeline page's Freeze form and
// Unfreeze confirmation (with the approval's CSRF protection), what the pages show while a switch holds, the fleet
// page's banner for an installation-wide switch, and what is stored and audited, as whom.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PIPELINE } from '../cli/fixtures.js';
import { FORM, startDashboardWorld, type DashboardWorld } from './world.js';

const PAGE = '/pipelines/flux-system/podinfo';
const FREEZE = `${PAGE}/freeze`;
const UNFREEZE = `${PAGE}/unfreeze`;

describe('the stop switch on the dashboard', { concurrency: false }, () => {
  let world: DashboardWorld;
  let base = '';
  let origin = '';
  const get = (path: string) => world.send(path);
  const post = (path: string, body: string, headers: Record<string, string> = { ...FORM, origin }) =>
    world.send(path, { method: 'POST', headers, body });
  const tokenOf = async (path: string): Promise<string> => {
    const form = await get(path);
    assert.equal(form.status, 200);
    const token = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1];
    assert.ok(token, `${path} carries the form token`);
    return token;
  };
  const freezeBody = (token: string, fields: Record<string, string>) =>
    new URLSearchParams({ ...fields, csrf: token }).toString();
  const audit = async () => (await world.backend.store.listAudit(PIPELINE)).items;

  before(async () => {
    world = await startDashboardWorld();
    base = world.dashboard.url;
    origin = base.replace(/\/$/, '');
    world.actAs('local:alice');
  });
  after(() => world.close());

  it('the pipeline page says nothing holds it, and links the Freeze form with every environment', async () => {
    const page = await get(PAGE);
    assert.match(page.body, /No stop switch holds this pipeline\./);
    assert.match(page.body, /<a class="button" href="\/pipelines\/flux-system\/podinfo\/freeze">Freeze…<\/a>/);
    const form = await get(FREEZE);
    assert.equal(form.status, 200);
    const options = [...form.body.matchAll(/<option value="([^"]*)">/g)].map((match) => match[1]);
    assert.deepEqual(options, ['', 'dev', 'staging', 'prod']);
  });

  it("refuses a freeze from another site, or without the page's token; nothing is set", async () => {
    const token = await tokenOf(FREEZE);
    const fields = { env: 'prod', reason: 'incident 4711' };
    const attempts: [string, Record<string, string>, string][] = [
      ['no token', { ...FORM, origin }, new URLSearchParams(fields).toString()],
      ['a wrong token', { ...FORM, origin }, freezeBody('guessed', fields)],
      ['another site', { ...FORM, 'sec-fetch-site': 'cross-site' }, freezeBody(token, fields)],
      ['another origin', { ...FORM, origin: 'http://evil.example' }, freezeBody(token, fields)],
    ];
    for (const [what, headers, body] of attempts) {
      const answer = await post(FREEZE, body, headers);
      assert.equal(answer.status, 403, what);
    }
    assert.deepEqual(await world.backend.store.listFreezes(), []);
  });

  it('refuses a form it cannot take, saying what is wrong', async () => {
    const token = await tokenOf(FREEZE);
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ reason: ' ' }, 400, /Say why promotions are frozen/],
      [{ reason: 'x', until: 'tomorrow' }, 400, /Until must be a duration such as 2h, 30m or 2d/],
      [{ reason: 'x', until: '2020-01-01T00:00:00Z' }, 400, /Until is not in the future/],
      [{ reason: 'x', env: 'qa' }, 404, /Pipeline flux-system\/podinfo has no such environment\./],
    ];
    for (const [fields, status, message] of cases) {
      const answer = await post(FREEZE, freezeBody(token, fields));
      assert.equal(answer.status, status, JSON.stringify(fields));
      assert.match(answer.body, message);
    }
    assert.deepEqual(await world.backend.store.listFreezes(), []);
  });

  it('freezes prod as the caller: stored, audited, and shown on the pipeline page with an Unfreeze link', async () => {
    const token = await tokenOf(FREEZE);
    const started = Date.now();
    const answer = await post(FREEZE, freezeBody(token, { env: 'prod', reason: 'incident 4711', until: '2h' }));
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.location, `${PAGE}?note=frozen#stop-switch`);

    const [freeze, ...others] = await world.backend.store.listFreezes();
    assert.deepEqual(others, []);
    assert.equal(freeze?.by, 'local:alice');
    assert.equal(freeze.env, 'prod');
    assert.equal(freeze.reason, 'incident 4711');
    assert.ok(Date.parse(freeze.until ?? '') >= started + 2 * 3_600_000);
    const [entry] = await audit();
    assert.equal(entry?.type, 'freeze-set');
    assert.equal(entry.actor, 'local:alice');
    assert.equal(entry.message, `prod frozen until ${freeze.until} with the dashboard: incident 4711`);
    assert.deepEqual(world.pending, [], 'a freeze hands the verifier nothing');

    const page = await get(`${PAGE}?note=frozen`);
    assert.match(page.body, /Frozen\. No promotion into the environments the switch covers starts/);
    assert.match(page.body, new RegExp(`<strong>prod frozen until ${freeze.until}</strong>: incident 4711`));
    assert.match(page.body, /href="\/pipelines\/flux-system\/podinfo\/unfreeze\?env=prod"\s*>Unfreeze prod</);
  });

  it('shows an installation-wide switch as a banner on the fleet page, and on the pipeline page without a button', async () => {
    await world.backend.store.setFreeze({
      scope: { installation: true },
      reason: 'release freeze',
      by: 'local:bob',
      at: new Date().toISOString(),
    });
    const fleet = await get('/');
    const banner = /<div class="notice problem" id="installation-freeze"[\s\S]*?<\/div>/.exec(fleet.body)?.[0] ?? '';
    assert.match(banner, /Promotions are frozen installation-wide\./);
    assert.match(banner, /every environment frozen installation-wide until unfrozen: release freeze/);
    assert.match(banner, /set by local:bob/);
    const page = await get(PAGE);
    assert.match(page.body, /<li data-freeze-scope="installation">/);
    assert.match(page.body, /lift it with <code>pipelinectl unfreeze --all<\/code>/);
  });

  it('unfreezes prod after a confirmation: gone, audited as the caller, the pipeline handed to the verifier', async () => {
    const token = await tokenOf(`${UNFREEZE}?env=prod`);
    const confirmation = await get(`${UNFREEZE}?env=prod`);
    assert.match(confirmation.body, /<input type="hidden" name="env" value="prod" \/>/);
    const refused = await post(UNFREEZE, new URLSearchParams({ env: 'prod' }).toString());
    assert.equal(refused.status, 403, 'no token');

    const answer = await post(UNFREEZE, new URLSearchParams({ env: 'prod', csrf: token }).toString());
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.location, `${PAGE}?note=unfrozen#stop-switch`);
    assert.deepEqual(
      (await world.backend.store.listFreezes()).map((freeze) => freeze.reason),
      ['release freeze'],
      'the installation-wide switch is not lifted here',
    );
    const [entry] = await audit();
    assert.equal(entry?.type, 'freeze-cleared');
    assert.equal(entry.actor, 'local:alice');
    assert.equal(entry.env, 'prod');
    assert.deepEqual(world.pending.splice(0), [
      { type: 'check-pipeline', pipeline: PIPELINE, cause: 'unfreeze', readTargets: false },
    ]);

    const again = await post(UNFREEZE, new URLSearchParams({ env: 'prod', csrf: token }).toString());
    assert.equal(again.status, 409);
    assert.match(again.body, /flux-system\/podinfo has no stop switch of its own for prod; still held by: every/);
    assert.match(again.body, /lift it with pipelinectl unfreeze --all/);
  });
});
