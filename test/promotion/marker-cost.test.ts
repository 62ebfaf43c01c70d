// What marker rewriting costs, as a user of a large fleet repository sees it: a file is read a fixed number of times
// whatever the number of markers in it, the bytes are those of rewriting each value on its own, and a promotion
// editing a large manifest leaves the process free to answer other requests meanwhile (a `serve` process receives
// events on the thread that promotes). No timings: the work is counted in characters the YAML lexer reads, and the
// answering in requests served while the edit runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Lexer } from 'yaml';
import { markersIn, setMarkedValues } from '../../lib/promotion/markers.js';
import { FAST, OWNER, prRequest, REPO, startFixture, type GitHubFixture } from './github-support.js';

const MARKER = 'foo:bar:prod';
const COMMENT = `# {"$promotion": "${MARKER}"}`;

/** A HelmRelease whose chart version carries the marker when `marked`. */
function helmRelease(index: number, marked: boolean): string {
  return `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app-${index}
spec:
  chart:
    spec:
      chart: app-${index}
      version: 1.0.${index}${marked ? ` ${COMMENT}` : ''}
  values:
    image:
      tag: v1.0.${index}
`;
}

/** How many characters the YAML lexer reads while `work` runs (every parse of the yaml package goes through it). */
function charactersLexed(work: () => void): number {
  const lex = Object.getOwnPropertyDescriptor(Lexer.prototype, 'lex');
  assert.ok(lex && typeof lex.value === 'function');
  const original = lex.value as Lexer['lex'];
  let characters = 0;
  Lexer.prototype.lex = function (this: Lexer, source: string, incomplete?: boolean) {
    characters += source.length;
    return original.call(this, source, incomplete);
  };
  try {
    work();
  } finally {
    Lexer.prototype.lex = original;
  }
  return characters;
}

/** Each form of marked value, and its text once `6.0.1` is written (docs/weave-compatibility.md). */
const FORMS: [string, string][] = [
  [`version: 1.0.0 ${COMMENT}\n`, `version: 6.0.1 ${COMMENT}\n`],
  [`version: "1.0.0" ${COMMENT}\n`, `version: "6.0.1" ${COMMENT}\n`],
  [`version: '1.0.0' ${COMMENT}\n`, `version: '6.0.1' ${COMMENT}\n`],
  [`${COMMENT}\nversion: 1.0.0\n`, `${COMMENT}\nversion: 6.0.1\n`],
  [`versions:\n  - 1.0.0 ${COMMENT}\n`, `versions:\n  - 6.0.1 ${COMMENT}\n`],
  [`version: ${COMMENT}\n`, `version: 6.0.1 ${COMMENT}\n`],
  [`version: | ${COMMENT}\n  1.0.0\n`, `version: |- ${COMMENT}\n  6.0.1\n`],
  [`version: !!int 5 ${COMMENT}\n`, `version: 6.0.1 ${COMMENT}\n`],
  [`version: 6.0.1 ${COMMENT}\n`, `version: 6.0.1 ${COMMENT}\n`],
  [`version: 1.0.0 # {"$promotion": "foo:bar:dev"}\n`, `version: 1.0.0 # {"$promotion": "foo:bar:dev"}\n`],
];

describe('the cost of rewriting markers', () => {
  it('reads a file as many times for 100 markers as for one', () => {
    const oneMarker = Array.from({ length: 100 }, (_, i) => helmRelease(i, i === 50)).join('');
    const hundredMarkers = Array.from({ length: 100 }, (_, i) => helmRelease(i, true)).join('');
    const readings = (text: string) =>
      Math.round(
        charactersLexed(() => assert.notEqual(setMarkedValues(text, MARKER, '6.0.1').text, text)) / text.length,
      );
    const once = readings(oneMarker);
    assert.ok(once >= 1);
    assert.equal(readings(hundredMarkers), once);
    assert.equal(Math.round(charactersLexed(() => markersIn(hundredMarkers)) / hundredMarkers.length), 1);
  });

  it('reads a file no writing can make valid as many times for 100 markers as for one', () => {
    // `on` and `true` are the same key under YAML 1.1: every rewrite would leave the file invalid for Kubernetes.
    const invalid11 = 'on: push\ntrue: yes\n';
    const oneMarker = invalid11 + Array.from({ length: 100 }, (_, i) => helmRelease(i, i === 50)).join('');
    const hundredMarkers = invalid11 + Array.from({ length: 100 }, (_, i) => helmRelease(i, true)).join('');
    const readings = (text: string) =>
      Math.round(
        charactersLexed(() =>
          assert.deepEqual(setMarkedValues(text, MARKER, '6.0.1'), { text, found: 0, replaced: 0 }),
        ) / text.length,
      );
    assert.equal(readings(hundredMarkers), readings(oneMarker));
  });

  it('rewrites 1,000 markers of every form byte for byte as it rewrites each alone', () => {
    const documents = Array.from({ length: 1000 }, (_, i) => FORMS[i % FORMS.length] as [string, string]);
    const input = documents.map(([before]) => `---\n${before}`).join('');
    const result = setMarkedValues(input, MARKER, '6.0.1');
    assert.equal(result.text, documents.map(([, written]) => `---\n${written}`).join(''));
    assert.deepEqual({ found: result.found, replaced: result.replaced }, { found: 900, replaced: 800 });
    for (const [before, written] of FORMS) assert.equal(setMarkedValues(before, MARKER, '6.0.1').text, written);
  });
});

describe('a promotion editing a large manifest', () => {
  let fixture: GitHubFixture;
  // About 1 MiB of HelmReleases, one of them marked.
  const manifest = Array.from({ length: 4000 }, (_, i) => helmRelease(i, i === 3999)).join('');

  before(async () => {
    fixture = await startFixture({ 'apps/prod/releases.yaml': manifest });
  });
  after(() => fixture.stop());

  it('leaves the process answering other requests while it edits', async () => {
    const { fake } = fixture;
    // The edit runs between the promoter's debug logs of the scan and of the values set: which requests the fake
    // had received at each.
    let scanned: number | undefined;
    let set: number | undefined;
    const logger = {
      debug: (message: string) => {
        if (message === 'scanned manifests for markers') scanned = fake.requests.length;
        if (message === 'set the marked values') set = fake.requests.length;
      },
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const promotion = fixture
      .promoter({ ...FAST, requestTimeoutMs: 60_000, logger })
      .promote(prRequest({ revision: '6.0.1' }));
    let promoting = true;
    const done = promotion.finally(() => {
      promoting = false;
    });
    // Requests to a server of this process, one after the other, until the promotion is done.
    let sent = 0;
    while (promoting) {
      const response = await fetch(`${fake.url}/repos/${OWNER}/${REPO}?probe=${sent++}`, {
        headers: { authorization: `token ${fake.token}` },
      });
      await response.arrayBuffer();
    }
    const { result } = await done;
    assert.match(result ?? '', /\/pull\/1$/);
    assert.equal(
      fake.files(OWNER, REPO, 'promotion-foo-bar-prod')['apps/prod/releases.yaml'],
      setMarkedValues(manifest, MARKER, '6.0.1').text,
    );
    assert.ok(scanned !== undefined && set !== undefined, 'the promoter logs its scan and its edit');
    const answeredWhileEditing = fake.requests.slice(scanned, set).filter((request) => request.query.probe).length;
    assert.ok(answeredWhileEditing >= 3, `${answeredWhileEditing} requests answered while editing`);
  });
});
