// Release trains on every Git host (docs/release-trains.md): the pipelines of one `pull-request.group` share one
// open pull request per (group, environment), on `promotion-group-{group}-{env}`. Each member's markers are set by
// the same byte-exact edit as its own pull request's; concurrent members end in one pull request holding both; a
// merged or closed group pull request is followed by a new one holding only what came due after it.
import assert from 'node:assert/strict';
import type { PromotionEvidence } from '../../lib/decision/promotion-evidence.js';
import { after, before, describe, it } from 'node:test';
import type { GroupMemberPromotion, PromotionRequest } from '../../lib/promotion/index.js';
import { setMarkedValues } from '../../lib/promotion/markers.js';
import { groupPullRequestBody, PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { isHttpUrl } from '../../lib/util/http-url.js';
import type { FakeHostUnderTest } from './git-host-under-test.js';
import { prRequest } from './github-support.js';
import { HOSTS } from './pull-request-subject.js';

const SECRET = { namespace: 'apps', name: 'git' };
const BRANCH = 'promotion-group-shop-prod';
const marker = (app: string) => `{"$promotion": "apps:${app}:prod"}`;

const FILES: Record<string, string> = {
  'apps/prod/cart.yaml': `image:\n  tag: "1.0.0" # ${marker('cart')}\n  pullPolicy: IfNotPresent\n`,
  // Two members' markers in one file: each edit leaves the other's bytes as they are.
  'apps/prod/shop.yaml': `cart: 1.0.0 # ${marker('cart')}\nweb: '1.0.0'   # ${marker('web')}\nother: 1.0.0\n`,
  'apps/prod/web.yml': `version: "1.0.0" # ${marker('web')}\r\n`,
  'apps/prod/checkout.yaml': `# café ☕\nversion: 1.0.0 # ${marker('checkout')}\n`,
  'apps/staging/web.yaml': `version: 1.0.0 # {"$promotion": "apps:web:staging"}\n`,
};

/** The files with each app's markers set to its revision, as the members' own pull requests would set them. */
function promoted(revisions: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(FILES)) {
    let edited = text;
    for (const [app, revision] of Object.entries(revisions)) {
      edited = setMarkedValues(edited, `apps:${app}:prod`, revision).text;
    }
    files[path] = edited;
  }
  return files;
}

/**
 * The promoter as the verifier drives it: a member's promotion record is claimed (being made) before the promoter
 * runs, and holds the pull request once it succeeded; `members()` answers what the records hold.
 */
class Train {
  readonly records = new Map<string, GroupMemberPromotion>();
  private readonly promoter: PullRequestPromoter;

  constructor(readonly fake: FakeHostUnderTest) {
    const secrets = new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]);
    this.promoter = new PullRequestPromoter({ secrets, hosts: [fake.host()], apiUrls: { [fake.type]: fake.apiUrl } });
  }

  request(app: string, revision: string): PromotionRequest {
    const request = prRequest({
      revision,
      namespace: 'apps',
      name: app,
      type: this.fake.type,
      url: this.fake.repositoryUrl,
      secretName: SECRET.name,
    });
    const spec = request.env.promotion?.strategy['pull-request'];
    assert.ok(spec);
    const env = { ...request.env, promotion: { strategy: { 'pull-request': { ...spec, group: 'shop' } } } };
    return {
      ...request,
      env,
      group: { members: () => Promise.resolve([...this.records.values()]) },
    };
  }

  /**
   * `members` answers the first read with `firstRead` instead of the records: what a promotion read before another
   * member's claim, while that one then runs to its end before this one writes.
   */
  async promote(
    app: string,
    revision: string,
    firstRead?: () => Promise<GroupMemberPromotion[]>,
    evidence?: PromotionEvidence,
  ): Promise<string> {
    this.records.set(app, { pipeline: { namespace: 'apps', name: app }, revision, ...(evidence ? { evidence } : {}) });
    const request = { ...this.request(app, revision), ...(evidence ? { evidence } : {}) };
    let reads = 0;
    const group = {
      members: () => (reads++ === 0 && firstRead ? firstRead() : Promise.resolve([...this.records.values()])),
    };
    const result = (await this.promoter.promote({ ...request, group })).result ?? '';
    this.records.set(app, {
      pipeline: { namespace: 'apps', name: app },
      revision,
      ...(isHttpUrl(result) ? { pullRequest: result } : {}),
      ...(evidence ? { evidence } : {}),
    });
    return result;
  }

  async state(app: string, url: string) {
    return this.promoter.pullRequestState({ ...this.request(app, 'any'), url });
  }

  openPullRequests() {
    return this.fake.pullRequests().filter((pull) => pull.state === 'open');
  }
}

for (const [type, start] of HOSTS) {
  describe(`${type}: a group's pull request`, () => {
    let train: Train;
    before(async () => {
      train = new Train(await start());
      train.fake.createRepository(FILES);
    });
    after(() => train.fake.stop());

    it('gathers the members promoted one after another into one pull request naming the group', async () => {
      const first = await train.promote('cart', '1.1.0');
      assert.equal(await train.promote('web', '2.0.0'), first);
      assert.equal(await train.promote('checkout', '3.0.0'), first);

      const open = train.openPullRequests();
      assert.equal(open.length, 1);
      const [pull] = open;
      assert.equal(pull?.url, first);
      assert.equal(pull?.source, BRANCH);
      assert.equal(pull?.target, 'main');
      assert.equal(pull?.title, 'Promote group shop in prod (3 apps)');
      for (const line of ['apps/cart: **1.1.0**', 'apps/checkout: **3.0.0**', 'apps/web: **2.0.0**']) {
        assert.ok(pull?.body.includes(`- ${line}`), `the body lists ${line}`);
      }
      for (const line of ['apps/cart/prod', 'apps/checkout/prod', 'apps/web/prod']) {
        assert.ok(pull?.body.includes(`\n${line}\n`), `Weave's block names ${line}`);
      }
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.1.0', web: '2.0.0', checkout: '3.0.0' }));
      assert.deepEqual(train.fake.files('main'), FILES, 'the base branch is untouched');
      if (type !== 'bitbucket-server') assert.equal(train.fake.commitsAhead(BRANCH), 1, 'one commit on the base');
      assert.equal(await train.state('web', first), 'open', "each member reads the group's pull request");
    });

    it("sets a member's newer revision in it and leaves the others' as they are", async () => {
      const [before] = train.openPullRequests();
      assert.equal(await train.promote('web', '2.1.0'), before?.url);
      assert.equal(train.openPullRequests().length, 1);
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.1.0', web: '2.1.0', checkout: '3.0.0' }));
      assert.ok(train.openPullRequests()[0]?.body.includes('- apps/web: **2.1.0**'));
    });

    it('once merged, opens a new pull request for what comes due next, holding only that', async () => {
      const [merged] = train.openPullRequests();
      assert.ok(merged);
      train.fake.merge(merged.url);
      assert.equal(await train.state('cart', merged.url), 'merged');

      const next = await train.promote('cart', '1.2.0');
      assert.notEqual(next, merged.url);
      assert.equal(train.openPullRequests().length, 1);
      assert.equal(train.openPullRequests()[0]?.title, 'Promote group shop in prod (1 app)');
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.2.0', web: '2.1.0', checkout: '3.0.0' }));
    });

    it('once closed unmerged, does not propose its revisions again: the next one starts from the next revisions', async () => {
      await train.promote('web', '2.2.0');
      const [closed] = train.openPullRequests();
      assert.ok(closed);
      train.fake.close(closed.url);
      assert.equal(await train.state('web', closed.url), 'closed');

      const next = await train.promote('checkout', '3.1.0');
      assert.notEqual(next, closed.url);
      // cart 1.2.0 and web 2.2.0 were in the closed one: the base keeps what was merged before.
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.1.0', web: '2.1.0', checkout: '3.1.0' }));
      assert.equal(train.openPullRequests()[0]?.title, 'Promote group shop in prod (1 app)');
      train.fake.close(next);
    });

    it('holds both members promoted at once, in one pull request', async () => {
      const results = await Promise.all([train.promote('cart', '1.3.0'), train.promote('web', '2.3.0')]);
      const open = train.openPullRequests();
      assert.equal(open.length, 1, 'one open pull request');
      assert.deepEqual(results, [open[0]?.url, open[0]?.url]);
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.3.0', web: '2.3.0', checkout: '3.0.0' }));
    });

    it("keeps a member whose promotion ran to its end between another's read and write", async () => {
      const [open] = train.openPullRequests();
      const stale = [...train.records.values()];
      // checkout's promotion reads the members, then web's runs whole (writing web 2.4.0), then checkout's writes what
      // it read (web 2.3.0): it must read again and put web 2.4.0 back.
      const result = await train.promote('checkout', '3.2.0', async () => {
        await train.promote('web', '2.4.0');
        return stale;
      });
      assert.equal(result, open?.url);
      assert.equal(train.openPullRequests().length, 1);
      assert.deepEqual(train.fake.files(BRANCH), promoted({ cart: '1.3.0', web: '2.4.0', checkout: '3.2.0' }));
    });

    it("shows each member's evidence, not only that of the member whose promotion wrote it last", async () => {
      const from = (app: string, revision: string): PromotionEvidence => ({
        from: 'staging',
        targets: [{ name: `flux-system/staging ${app}`, revision, phase: 'Ready' }],
      });
      await train.promote('cart', '1.5.0', undefined, from('cart', '1.5.0'));
      await train.promote('web', '2.5.0', undefined, from('web', '2.5.0'));
      const [open] = train.openPullRequests();
      for (const [app, revision] of [
        ['cart', '1.5.0'],
        ['web', '2.5.0'],
      ]) {
        assert.ok(open?.body.includes(`**apps/${app}** ${revision}: Promoted from **staging**.`), open?.body);
        assert.ok(open?.body.includes(`| flux-system/staging ${app} | ${revision} | Ready | - |`), open?.body);
      }
    });
  });
}

describe("a group's body", () => {
  it("fits a host's limit by cutting the list from the end, keeping every member in Weave's block", () => {
    const members = Array.from({ length: 80 }, (_, index) => ({
      namespace: 'apps',
      name: `service-${String(index).padStart(2, '0')}`,
      revision: `1.${index}.0`,
    }));
    const body = groupPullRequestBody('shop', 'prod', members, 4000);
    assert.ok(body.length <= 4000, `${body.length} characters`);
    assert.ok(body.includes('- apps/service-00: **1.0.0**'), 'the list starts with the first member');
    assert.match(body, /- … and \d+ more, in the metadata below/);
    for (const member of members) assert.ok(body.includes(`\napps/${member.name}/prod\n`), member.name);

    const whole = groupPullRequestBody('shop', 'prod', members.slice(0, 3), 4000);
    assert.doesNotMatch(whole, /more, in the metadata below/);
  });
});
