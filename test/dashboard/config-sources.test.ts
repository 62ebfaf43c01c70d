// The dashboard's view of the ConfigSources, over HTTP on a local data directory whose sources were synced as the
// verifier records a sync: `fleet` Ready at its commit (it applied podinfo), `broken` not Ready with a message holding
// markup. The fleet page lists both as `pipelinectl get configsources` does, podinfo's page says it is applied from
// Git and by which source at which commit, and the history shows the applied commit with what it changed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigSourceStatusSummaryJson } from '../../lib/cli/operations/config-sources.js';
import { fleetPage } from '../../lib/cli/dashboard/fleet-page.js';
import { BROKEN_SOURCE_MESSAGE, FLEET_SOURCE, startDashboardWorld, type DashboardWorld } from './world.js';

/** What a person reads of some markup: the text (a block's edge is a space), entities decoded, spaces as one. */
function textOf(markup: string): string {
  return markup
    .replace(/<\/?(?:a|code|span|strong|time)\b[^>]*>/g, '')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#96;/g, '`')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The cells' text of the fleet page's row for a source, in column order. */
function sourceRow(body: string, name: string): string[] {
  const row = new RegExp(`<tr data-config-source="${name}">([\\s\\S]*?)</tr>`).exec(body)?.[1];
  assert.ok(row, `the page has a row for ${name}`);
  return [...row.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => textOf(cell[1] ?? ''));
}

/** The markup of the history's entries of a type. */
function entriesOf(body: string, type: string): string[] {
  return [...body.matchAll(new RegExp(`<li data-type="${type}"[\\s\\S]*?</li>\\s*(?=<li data-type|</ol>)`, 'g'))].map(
    (match) => match[0],
  );
}

describe('the dashboard shows the ConfigSources', { concurrency: false }, () => {
  let world: DashboardWorld;
  const page = (path: string) => world.send(path);

  before(async () => {
    world = await startDashboardWorld({ configSources: true });
  });
  after(() => world.close());

  it('the fleet page lists every source with its repository, branch, path, applied commit and Ready condition', async () => {
    const fleet = await page('/');
    assert.equal(fleet.status, 200);
    assert.match(fleet.body, /<h2 id="config-sources-title">Config sources<\/h2>/);
    assert.match(fleet.body, /<th scope="col">Ready<\/th>/);
    assert.deepEqual(sourceRow(fleet.body, 'flux-system/fleet'), [
      'flux-system/fleet',
      'https://github.com/acme/fleet',
      'main',
      'pipelines',
      'main@sha1:1a2b3c4d',
      'Ready (Succeeded)',
      `applied main@sha1:1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d: 1 object`,
    ]);
    assert.deepEqual(sourceRow(fleet.body, 'flux-system/broken'), [
      'flux-system/broken',
      'https://gitlab.com/acme/platform',
      'release',
      '.',
      'none yet',
      'Not ready (ValidationFailed)',
      BROKEN_SOURCE_MESSAGE,
    ]);
    assert.match(fleet.body, /<a href="https:\/\/github\.com\/acme\/fleet" rel="noreferrer noopener">/);
    // The colour repeats the word, and a machine reads the status as Flux writes it.
    assert.match(fleet.body, /<span class="state ready-false" data-ready="False">Not ready<\/span>/);
  });

  it("shows a source's message as text: markup from the repository never reaches the page as markup", async () => {
    const { body } = await page('/');
    assert.ok(BROKEN_SOURCE_MESSAGE.includes('<script>'));
    assert.ok(!body.includes('<script>window.sourcePwned'), 'the message is not markup');
    assert.ok(body.includes('&lt;script&gt;window.sourcePwned = true&lt;/script&gt;'));
  });

  it('a repository URL is a link only when it is https', () => {
    const source = (name: string, url: string): ConfigSourceStatusSummaryJson => ({
      namespace: 'flux-system',
      name,
      url,
      branch: 'main',
      path: null,
      lastAppliedRevision: null,
      lastAttemptedRevision: null,
      ready: 'Unknown',
      reason: 'Pending',
      message: 'not synced yet',
      lastTransitionTime: null,
    });
    const body = fleetPage(
      [],
      'test',
      new Date(),
      [],
      [
        source('secure', 'https://git.example/acme/fleet'),
        source('plain', 'http://git.example/acme/fleet'),
        source('script', 'javascript:alert(1)'),
      ],
    ).toString();
    const external = [...body.matchAll(/<a href="([^/#"][^"]*)"/g)].map((match) => match[1]);
    assert.deepEqual(external, ['https://git.example/acme/fleet']);
    assert.deepEqual(sourceRow(body, 'flux-system/plain').slice(1, 2), ['http://git.example/acme/fleet']);
    assert.deepEqual(sourceRow(body, 'flux-system/script').slice(1, 2), ['javascript:alert(1)']);
    assert.deepEqual(sourceRow(body, 'flux-system/secure').slice(4, 6), ['none yet', 'Unknown (Pending)']);
  });

  it("in a demo's simulated world a repository URL is marked simulated and leads nowhere", () => {
    const demo: ConfigSourceStatusSummaryJson = {
      namespace: 'flux-system',
      name: 'fleet',
      url: 'https://github.com/acme/fleet',
      branch: 'main',
      path: 'pipelines',
      lastAppliedRevision: null,
      lastAttemptedRevision: null,
      ready: 'Unknown',
      reason: 'Pending',
      message: 'not synced yet',
      lastTransitionTime: null,
    };
    const real = fleetPage([], 'test', new Date(), [], [demo]).toString();
    assert.match(real, /<a href="https:\/\/github\.com\/acme\/fleet"/);
    const simulated = fleetPage([], 'test', new Date(), [], [demo], true).toString();
    assert.doesNotMatch(simulated, /href="https:\/\/github\.com/);
    assert.deepEqual(sourceRow(simulated, 'flux-system/fleet').slice(1, 2), [
      'https://github.com/acme/fleet (simulated)',
    ]);
  });

  it('the history shows the commit a source applied, with its author and the objects it created, changed and pruned', async () => {
    const all = await page('/history');
    assert.equal(all.status, 200);
    const [applied, ...others] = entriesOf(all.body, 'config-applied');
    assert.ok(applied, 'the applied commit is in the history');
    assert.equal(others.length, 0);
    const text = textOf(applied);
    assert.match(
      text,
      /^config-applied · .+ ago · ConfigSource flux-system\/fleet · main@sha1:1a2b3c4d · authored by Ada <ada@example\.com>/,
    );
    assert.match(
      text,
      /created: pipeline flux-system\/podinfo configured: gitopscluster flux-system\/dev pruned: pipeline flux-system\/retired$/,
    );
    assert.ok(entriesOf(all.body, 'approval-requested').length > 0, "the pipelines' entries are there too");

    const onlyCommits = await page('/history?type=config-applied');
    assert.equal(onlyCommits.status, 200);
    assert.deepEqual(
      [...onlyCommits.body.matchAll(/<li data-type="([^"]+)"/g)].map((match) => match[1]),
      ['config-applied'],
    );
    assert.match(onlyCommits.body, /<option value="config-applied"\s+selected>config-applied<\/option>/);

    const onePipeline = await page('/history?pipeline=flux-system%2Fpodinfo');
    assert.equal(entriesOf(onePipeline.body, 'config-applied').length, 0, "a pipeline's history is its own");
    const both = await page('/history?pipeline=flux-system%2Fpodinfo&type=config-applied');
    assert.equal(both.status, 400);
    assert.match(textOf(both.body), /choose every pipeline to see them/);
  });

  it('a pipeline a source applied says so, naming the source and the commit; once the source is gone, it does not', async () => {
    const owned = await page('/pipelines/flux-system/podinfo');
    assert.equal(owned.status, 200);
    const line = /<p class="notice" id="applied-from-git">[\s\S]*?<\/p>/.exec(owned.body)?.[0];
    assert.ok(line, 'the page says where the pipeline comes from');
    assert.equal(
      textOf(line),
      'Applied from Git by ConfigSource flux-system/fleet at main@sha1:1a2b3c4d. Change it in the repository: ' +
        'pipelinectl apply and delete refuse it.',
    );
    assert.match(line, /<a href="\/#config-sources">flux-system\/fleet<\/a>/);

    assert.ok(await world.backend.store.deleteConfigSource(FLEET_SOURCE));
    const orphan = await page('/pipelines/flux-system/podinfo');
    assert.equal(orphan.status, 200);
    assert.doesNotMatch(orphan.body, /Applied from Git/);
    assert.equal(sourceRow((await page('/')).body, 'flux-system/broken')[0], 'flux-system/broken');
    assert.doesNotMatch((await page('/')).body, /data-config-source="flux-system\/fleet"/);
  });
});
