// The pipeline page's graph as the server draws it: where each environment goes (columns by depth, rows in listed
// order), the arrows, the graph in words for a screen reader, and every name from a document escaped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  graphInWords,
  layoutEnvironments,
  pipelineGraph,
  type GraphNodeEnvironment,
} from '../../lib/cli/dashboard/pipeline-graph.js';
import type { GraphEnvironment } from '../../lib/pipeline/environment-graph.js';

const DIAMOND: GraphEnvironment[] = [
  { name: 'staging' },
  { name: 'prod-eu', after: ['staging'] },
  { name: 'prod-us', after: ['staging'] },
  { name: 'global', after: ['prod-eu', 'prod-us'] },
];
const FAN_OUT: GraphEnvironment[] = [
  { name: 'staging' },
  { name: 'eu', after: ['staging'] },
  { name: 'us', after: ['staging'] },
  { name: 'ap', after: ['staging'] },
];
const LINE: GraphEnvironment[] = [{ name: 'dev' }, { name: 'staging' }, { name: 'prod' }];

/** Each environment's column and row, by name. */
function places(environments: readonly GraphEnvironment[]): Record<string, [number, number]> {
  return Object.fromEntries(layoutEnvironments(environments).nodes.map((node) => [node.name, [node.column, node.row]]));
}

const passed = (environment: GraphEnvironment): GraphNodeEnvironment => ({
  ...environment,
  state: 'passed',
  stateText: 'passed',
  reason: 'AllTargetsReady',
  revision: '1.4.0',
});

describe('the pipeline graph', () => {
  it('a diamond: the fan-out in one column, one row per branch in listed order, the fan-in between them', () => {
    assert.deepEqual(places(DIAMOND), { staging: [0, 0], 'prod-eu': [1, 0], 'prod-us': [1, 1], global: [2, 0] });
    const layout = layoutEnvironments(DIAMOND);
    const y = Object.fromEntries(layout.nodes.map((node) => [node.name, node.y]));
    assert.ok((y['prod-eu'] ?? 0) < (y['prod-us'] ?? 0));
    assert.equal(y.global, ((y['prod-eu'] ?? 0) + (y['prod-us'] ?? 0)) / 2, 'the fan-in is centred on its branches');
    assert.equal(y.staging, y.global);
    assert.deepEqual(layout.edges, [
      { from: 'staging', to: 'prod-eu' },
      { from: 'staging', to: 'prod-us' },
      { from: 'prod-eu', to: 'global' },
      { from: 'prod-us', to: 'global' },
    ]);
    assert.equal(graphInWords(DIAMOND), 'staging → prod-eu, prod-us; prod-eu, prod-us → global');
  });

  it('a fan-out: every branch in the second column, in the order listed', () => {
    assert.deepEqual(places(FAN_OUT), { staging: [0, 0], eu: [1, 0], us: [1, 1], ap: [1, 2] });
    assert.equal(graphInWords(FAN_OUT), 'staging → eu, us, ap');
  });

  it('a line (no after): one row, left to right in the order listed', () => {
    assert.deepEqual(places(LINE), { dev: [0, 0], staging: [1, 0], prod: [2, 0] });
    const layout = layoutEnvironments(LINE);
    assert.equal(new Set(layout.nodes.map((node) => node.y)).size, 1, 'one row');
    assert.ok(layout.width > layout.height);
    assert.equal(graphInWords(LINE), 'dev → staging; staging → prod');
    assert.equal(graphInWords([{ name: 'prod' }]), '', 'a single environment has no arrow to say');
  });

  it('an environment stands right of everything it follows: its column is its longest path from the first', () => {
    const environments: GraphEnvironment[] = [
      { name: 'dev' },
      { name: 'qa', after: ['dev'] },
      { name: 'perf', after: ['qa'] },
      { name: 'preprod', after: ['dev', 'perf'] },
    ];
    assert.deepEqual(places(environments), { dev: [0, 0], qa: [1, 0], perf: [2, 0], preprod: [3, 0] });
  });

  it('draws an image named by the graph in words, a node per environment with its title, state class and words', () => {
    const svg = pipelineGraph(
      'flux-system/shop',
      DIAMOND.map((environment) =>
        environment.name === 'global'
          ? {
              ...environment,
              state: 'not-reached',
              stateText: 'waits for prod-us',
              reason: 'StoppedEarlier',
              revision: '1.3.0',
            }
          : passed(environment),
      ),
    ).toString();
    assert.match(svg, /<svg\b[^>]*\s+role="img"\s+aria-labelledby="pipeline-graph-title pipeline-graph-desc"/);
    assert.match(
      svg,
      /<title id="pipeline-graph-title">\s*The environments of flux-system\/shop: staging → prod-eu, prod-us; prod-eu, prod-us → global\s*<\/title>/,
    );
    const nodes = [...svg.matchAll(/<g\s+class="node ([^"]+)"\s+data-env="([^"]+)"[^>]*>\s*<title>([^<]*)<\/title>/g)];
    assert.deepEqual(
      nodes.map(([, classes, env, title]) => [env, classes, title]),
      [
        ['staging', 'state-passed', 'staging: 1.4.0, passed (AllTargetsReady)'],
        ['prod-eu', 'state-passed', 'prod-eu: 1.4.0, passed (AllTargetsReady); after staging'],
        ['prod-us', 'state-passed', 'prod-us: 1.4.0, passed (AllTargetsReady); after staging'],
        ['global', 'state-not-reached', 'global: 1.3.0, waits for prod-us (StoppedEarlier); after prod-eu, prod-us'],
      ],
    );
    assert.match(svg, /class="node-state"[^>]*>\s*waits for prod-us\s*<\/text>/);
    assert.equal([...svg.matchAll(/<path\s+class="edge"/g)].length, 4);
  });

  it('escapes every name and revision from a document or a cluster, in the text, the titles and the attributes', () => {
    const hostile = 'eu<&"\'`x';
    const svg = pipelineGraph('flux-system/<b>shop</b>', [
      { ...passed({ name: 'staging' }), revision: '<script>alert(1)</script>' },
      passed({ name: hostile, after: ['staging'] }),
    ]).toString();
    assert.ok(!svg.includes(hostile), 'never written raw');
    assert.ok(!svg.includes('<script>') && !svg.includes('<b>'));
    const escaped = 'eu&lt;&amp;&quot;&#39;&#96;x';
    assert.match(svg, new RegExp(`data-env="${escaped}"`));
    assert.match(svg, new RegExp(`data-to="${escaped}"`));
    assert.match(svg, new RegExp(`<title>${escaped}: 1\\.4\\.0, passed \\(AllTargetsReady\\); after staging</title>`));
    assert.match(svg, new RegExp(`class="node-name"[^>]*>\\s*${escaped}\\s*</text>`));
    assert.match(svg, /staging → eu&lt;&amp;&quot;&#39;&#96;x/);
    assert.match(svg, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('a text that fits the widest box is never cut: the box grows to hold it', () => {
    for (let length = 1; length <= 30; length++) {
      const text = 'w'.repeat(length);
      const svg = pipelineGraph('flux-system/shop', [{ ...passed({ name: text }), stateText: text }]).toString();
      assert.match(svg, new RegExp(`class="node-name"[^>]*>\\s*${text}\\s*</text>`), `a name of ${length}`);
      assert.match(svg, new RegExp(`class="node-state"[^>]*>\\s*${text}\\s*</text>`), `a state of ${length}`);
    }
  });

  it('a name too long for its box is cut with an ellipsis there, and whole in its title', () => {
    const long = `prod-${'x'.repeat(58)}`;
    const svg = pipelineGraph('flux-system/shop', [passed({ name: 'staging' }), passed({ name: long })]).toString();
    const shown = /class="node-name"[^>]*>\s*(prod-x+…)\s*<\/text>/.exec(svg)?.[1];
    assert.ok(shown !== undefined && shown.length < long.length, 'cut in the box');
    assert.match(svg, new RegExp(`<title>${long}: 1\\.4\\.0, passed`));
  });
});
