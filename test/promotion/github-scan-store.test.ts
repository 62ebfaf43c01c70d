// The marker scan kept in the table: a promoter in a new process (a new Lambda container, a restarted `serve`) reads
// from GitHub only the blobs no promoter has seen, and the stored facts never fail a promotion.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PutItemCommand, QueryCommand, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Logger } from '../../lib/logging/logger.js';
import { ARCHIVE_AFTER_READS, InMemoryMarkerScanStore } from '../../lib/promotion/pull-request/index.js';
import { dynamoTable, markerScanKey, MAX_SCAN_ITEMS, type DynamoMarkerScansOptions } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import {
  BRANCH,
  FLEET_FILES,
  HELMRELEASE_PROD,
  OWNER,
  PROD_FILE,
  REPO,
  prRequest,
  startFixture,
} from './github-support.js';

const BLOB_READ = 'GET /repos/{owner}/{repo}/git/blobs/{file_sha}';
const ARCHIVE_READ = 'GET /repos/{owner}/{repo}/tarball/{ref}';
const SECOND_PROD_FILE = 'apps/prod-us/podinfo.yaml';
const DEV_FILE = 'apps/dev/podinfo.yaml';
const OTHER_APPS = 294;

/**
 * What a scan that knows no blob reads: every YAML blob, all from one archive of the commit (more than
 * ARCHIVE_AFTER_READS of them), none on its own.
 */
function assertReadEveryBlob(fake: { count(route: string): number }): void {
  assert.ok(YAML_FILES > ARCHIVE_AFTER_READS);
  assert.deepEqual({ blobs: fake.count(BLOB_READ), archives: fake.count(ARCHIVE_READ) }, { blobs: 0, archives: 1 });
}

/** 300 YAML files: two carry the `foo:bar:prod` marker, one `foo:bar:dev`, the rest none. */
function fleet(): Record<string, string> {
  const files: Record<string, string> = {
    ...FLEET_FILES,
    [SECOND_PROD_FILE]: HELMRELEASE_PROD.replace('namespace: prod', 'namespace: prod-us'),
  };
  for (let i = 0; i < OTHER_APPS; i++) files[`apps/other/app-${i}.yaml`] = `kind: ConfigMap\ndata:\n  n: "${i}"\n`;
  return files;
}
const FLEET = fleet();
const YAML_FILES = Object.keys(FLEET).filter((path) => /\.ya?ml$/.test(path)).length;

function recordingLogger(): Pick<Logger, 'debug' | 'info' | 'warn'> & { warnings: string[] } {
  const warnings: string[] = [];
  return {
    warnings,
    debug: () => undefined,
    info: () => undefined,
    warn: (message, attributes) => warnings.push(`${message} ${JSON.stringify(attributes ?? {})}`),
  };
}

/** The size of a stored item as DynamoDB counts it: attribute names and values (numbers at their maximum). */
function dynamoItemBytes(item: Record<string, AttributeValue>): number {
  const value = (v: AttributeValue): number => {
    if (v.S !== undefined) return Buffer.byteLength(v.S);
    if (v.N !== undefined) return 21;
    if (v.B !== undefined) return v.B.length;
    if (v.L !== undefined) return 3 + v.L.reduce((sum, e) => sum + 1 + value(e), 0);
    if (v.M !== undefined) return 3 + dynamoItemBytes(v.M) + Object.keys(v.M).length;
    return 1;
  };
  return Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + value(v), 0);
}

const sha = (n: number): string => n.toString(16).padStart(40, '0');

describe('GitHub marker scan kept in DynamoDB', () => {
  let dynamo: LocalDynamo;
  before(async () => {
    dynamo = await startDynalite();
  });
  after(() => dynamo.stop());

  const scans = (options?: DynamoMarkerScansOptions) =>
    dynamoTable({ client: dynamo.client, tableName: dynamo.tableName }).markerScans(options);

  /** Overwrites the stored marker scan of the fake GitHub at `repositoryApi` with `corrupt(item)`. */
  async function corruptStoredScans(
    repositoryApi: string,
    corrupt: (item: Record<string, AttributeValue>) => Record<string, AttributeValue>,
  ) {
    const { Items = [] } = await dynamo.client.send(
      new ScanCommand({
        TableName: dynamo.tableName,
        FilterExpression: 'begins_with(pk, :markers)',
        ExpressionAttributeValues: { ':markers': { S: 'MARKERS#' } },
      }),
    );
    const mine = Items.filter((item) => item.repository?.S?.startsWith(`${repositoryApi.toLowerCase()} `));
    assert.equal(mine.length, 1, 'one item for the one repository');
    for (const item of mine)
      await dynamo.client.send(new PutItemCommand({ TableName: dynamo.tableName, Item: corrupt(item) }));
  }

  it('a new promoter reads only the blobs with its marker and those no promoter has seen', async () => {
    const fixture = await startFixture(FLEET);
    const { fake } = fixture;
    const blobPaths = (ref: string) => {
      const pathOf = new Map(Object.entries(fake.blobShas(OWNER, REPO, ref)).map(([path, blob]) => [blob, path]));
      return fake.requests
        .filter((request) => request.route === BLOB_READ)
        .map((request) => pathOf.get(request.path.split('/').pop() ?? '') ?? request.path)
        .sort();
    };
    try {
      // Promoter A (one container) scans the repository for the first time: every YAML blob.
      dynamo.resetCounts();
      await fixture.promoter({ markerScans: scans() }).promote(prRequest({ revision: '5.0.1' }));
      assertReadEveryBlob(fake);
      assert.equal(dynamo.operations.get('GetItem'), 1);
      assert.equal(dynamo.operations.get('PutItem'), 1);

      // Other teams change 5 manifests while the pull request is open; promoter B lives in another container.
      const changed = [3, 50, 100, 150, 200].map((i) => `apps/other/app-${i}.yaml`);
      fake.commitFiles(
        OWNER,
        REPO,
        'main',
        Object.fromEntries(changed.map((path) => [path, `kind: Secret\nmetadata:\n  name: ${path}\n`])),
      );
      fake.resetRequests();
      dynamo.resetCounts();
      await fixture.promoter({ markerScans: scans() }).promote(prRequest({ revision: '5.0.2' }));
      assert.deepEqual(blobPaths('main'), [PROD_FILE, SECOND_PROD_FILE, ...changed].sort());
      assert.equal(dynamo.operations.get('GetItem'), 1);
      assert.equal(dynamo.operations.get('PutItem'), 1, 'the 5 new blobs are stored');

      const pulls = fake.pulls(OWNER, REPO);
      assert.deepEqual(
        pulls.map((pull) => [pull.state, pull.title]),
        [['open', 'Promote foo/bar in prod to 5.0.2']],
      );
      assert.equal(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE), HELMRELEASE_PROD.replace('"5.0.0"', '"5.0.2"'));
      assert.match(fake.readFile(OWNER, REPO, BRANCH, SECOND_PROD_FILE) ?? '', /version: "5\.0\.2" # \{"\$promotion"/);
      assert.equal(fake.readFile(OWNER, REPO, BRANCH, DEV_FILE), FLEET[DEV_FILE]);

      // Merged; promoter C, a third container, reads just the two merged manifests: B's facts were stored too.
      fake.merge(OWNER, REPO, pulls[0]?.number ?? 0);
      fake.resetRequests();
      dynamo.resetCounts();
      await fixture.promoter({ markerScans: scans() }).promote(prRequest({ revision: '5.0.3' }));
      assert.deepEqual(blobPaths('main'), [PROD_FILE, SECOND_PROD_FILE].sort());
      assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.3"/);
      assert.equal(dynamo.operations.get('GetItem'), 1);
      assert.equal(dynamo.operations.get('PutItem'), 1, 'the merged blobs are new');

      // The same promoter again on an unchanged base: no load (it knows the repository), no blob read, no write.
      const promoter = fixture.promoter({ markerScans: scans() });
      await promoter.promote(prRequest({ revision: '5.0.3', attempt: 2 }));
      fake.resetRequests();
      dynamo.resetCounts();
      await promoter.promote(prRequest({ revision: '5.0.3', attempt: 3 }));
      assert.equal(fake.count(BLOB_READ), 0);
      assert.equal(dynamo.operations.size, 0);
    } finally {
      await fixture.stop();
    }
  });

  for (const [what, corrupt] of [
    [
      'a truncated blob list',
      (item: Record<string, AttributeValue>) => ({ ...item, blobsWithoutMarkers: { B: new Uint8Array(7) } }),
    ],
    [
      'an item of another kind',
      (item: Record<string, AttributeValue>) => ({ pk: item.pk!, sk: item.sk!, entity: { S: 'approval' } }),
    ],
  ] as const) {
    it(`promotes past ${what} in the table, reading the blobs, and stores a sound item again`, async () => {
      const fixture = await startFixture(FLEET);
      const { fake } = fixture;
      try {
        await fixture.promoter({ markerScans: scans() }).promote(prRequest({ revision: '5.0.1' }));
        await corruptStoredScans(fake.url, corrupt);

        const logger = recordingLogger();
        fake.resetRequests();
        await fixture.promoter({ markerScans: scans(), logger }).promote(prRequest({ revision: '5.0.2' }));
        assertReadEveryBlob(fake);
        assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.2"/);
        assert.equal(logger.warnings.length, 1);
        assert.match(logger.warnings[0] ?? '', /cannot load the stored marker scan.*malformed/);

        fake.resetRequests();
        await fixture.promoter({ markerScans: scans() }).promote(prRequest({ revision: '5.0.3' }));
        assert.equal(fake.count(BLOB_READ), 2, 'the item was rewritten: only the two marked blobs are read');
      } finally {
        await fixture.stop();
      }
    });
  }

  it('promotes when DynamoDB fails, reading the blobs, and logs the failure without the token', async () => {
    const fixture = await startFixture(FLEET);
    const { fake } = fixture;
    const missingTable = dynamoTable({ client: dynamo.client, tableName: 'no-such-table' }).markerScans();
    const logger = recordingLogger();
    try {
      const outcome = await fixture
        .promoter({ markerScans: missingTable, logger })
        .promote(prRequest({ revision: '5.0.1' }));
      assert.deepEqual(outcome, { result: `https://github.com/${OWNER}/${REPO}/pull/1` });
      assertReadEveryBlob(fake);
      assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.1"/);
      assert.equal(logger.warnings.length, 2);
      assert.match(logger.warnings[0] ?? '', /cannot load the stored marker scan/);
      assert.match(logger.warnings[1] ?? '', /cannot store the marker scan/);
      assert.ok(logger.warnings.every((warning) => !warning.includes(fake.token)));
    } finally {
      await fixture.stop();
    }
  });

  it('round-trips facts, one item per repository', async () => {
    const store = scans();
    const sha256Blob = 'ab'.repeat(32);
    const facts = new Map<string, readonly string[]>([
      [sha(1), []],
      [sha(2), ['foo:bar:prod', 'foo:bar:dev']],
      [sha(3), []],
      [sha256Blob, []],
      [sha(4), ['a:b:c']],
    ]);
    await store.save('https://api.github.com acme/round-trip', facts);
    await store.save('https://api.github.com acme/other', new Map([[sha(9), []]]));
    const loaded = await store.load('https://api.github.com acme/round-trip');
    assert.deepEqual([...loaded].sort(), [...facts].sort());
    assert.deepEqual([...(await store.load('https://api.github.com acme/other'))], [[sha(9), []]]);
    assert.equal((await store.load('https://api.github.com acme/never-saved')).size, 0);
  });

  it('keeps each item under its size cap, the most recently seen blobs in the first, the oldest dropped', async () => {
    const maxItemBytes = 4_000;
    const store = scans({ maxItemBytes });
    const repository = 'https://api.github.com acme/large';
    // Oldest first: 5,000 blobs without markers, then one with markers, as the promoter lists them.
    const facts = new Map<string, readonly string[]>(Array.from({ length: 5000 }, (_, i) => [sha(i + 1), []]));
    facts.set(sha(9000), ['foo:bar:prod']);
    await store.save(repository, facts);

    const { Items = [] } = await dynamo.client.send(
      new QueryCommand({
        TableName: dynamo.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: markerScanKey(repository).pk } },
      }),
    );
    assert.equal(Items.length, MAX_SCAN_ITEMS);
    for (const item of Items) {
      const bytes = dynamoItemBytes(item);
      assert.ok(bytes <= maxItemBytes, `${bytes} bytes stored`);
      assert.ok(bytes > maxItemBytes - 100, `${bytes} bytes: the cap is used, not wasted`);
    }

    const loaded = await store.load(repository);
    assert.ok(loaded.size > 1000 && loaded.size < 5000, `${loaded.size} facts kept`);
    assert.deepEqual(loaded.get(sha(9000)), ['foo:bar:prod']);
    const kept = [...facts.keys()].slice(-loaded.size);
    assert.deepEqual([...loaded.keys()].sort(), kept.sort(), 'exactly the newest facts');
  });

  it('a repository larger than one item: a new promoter reads only the blobs with its marker', async () => {
    // About 190 blobs fit in an item of 4,000 bytes: the 300 manifests take two.
    const fixture = await startFixture(FLEET);
    const { fake } = fixture;
    try {
      await fixture.promoter({ markerScans: scans({ maxItemBytes: 4_000 }) }).promote(prRequest({ revision: '5.0.1' }));
      fake.resetRequests();
      await fixture.promoter({ markerScans: scans({ maxItemBytes: 4_000 }) }).promote(prRequest({ revision: '5.0.2' }));
      assert.deepEqual(
        { blobs: fake.count(BLOB_READ), archives: fake.count(ARCHIVE_READ) },
        { blobs: 2, archives: 0 },
        'the two manifests with the marker, read for their text; every other blob known from the table',
      );
      assert.match(fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.2"/);
    } finally {
      await fixture.stop();
    }
  });
});

describe('GitHub marker scan loaded once per process', () => {
  it('loads the stored facts once for concurrent promotions of one repository', async () => {
    const fixture = await startFixture(FLEET);
    const store = new InMemoryMarkerScanStore();
    try {
      await fixture.promoter({ markerScans: store }).promote(prRequest({ revision: '5.0.1' }));
      const promoter = fixture.promoter({ markerScans: store });
      store.loads = 0;
      fixture.fake.resetRequests();
      await Promise.all([
        promoter.promote(prRequest({ revision: '5.0.2' })),
        promoter.promote(prRequest({ revision: '5.0.2', env: 'dev' })),
      ]);
      assert.equal(store.loads, 1);
      assert.equal(fixture.fake.count(BLOB_READ), 3, 'the two prod and the dev manifest, each read for its text');
      assert.deepEqual(
        fixture.fake
          .pulls(OWNER, REPO)
          .map((pull) => pull.title)
          .sort(),
        ['Promote foo/bar in dev to 5.0.2', 'Promote foo/bar in prod to 5.0.2'],
      );
    } finally {
      await fixture.stop();
    }
  });
});

describe('GitHub marker scan of identical files', () => {
  it('reads a blob shared by several paths once', async () => {
    const kustomization = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n';
    const files: Record<string, string> = { ...FLEET_FILES };
    for (let i = 0; i < 10; i++) files[`apps/team-${i}/kustomization.yaml`] = kustomization;
    const fixture = await startFixture(files);
    try {
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      const yamlTexts = Object.entries(files)
        .filter(([path]) => /\.ya?ml$/.test(path))
        .map(([, text]) => text);
      assert.equal(yamlTexts.length, 15);
      assert.equal(fixture.fake.count(BLOB_READ), 6, 'the 5 other YAML files and the one Kustomization blob');
      assert.match(fixture.fake.readFile(OWNER, REPO, BRANCH, PROD_FILE) ?? '', /version: "5\.0\.1"/);
    } finally {
      await fixture.stop();
    }
  });
});
