// The store's limits (lib/store/dynamodb/limits.ts) on what `apply` would write, beyond one pipeline's size (that
// one is in test/cli/apply-limits.test.ts): a usage record shared by many pipelines, keys, a cluster's size.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatPath, formatProblem, type ConfigProblem } from '../../lib/config/problems.js';
import type { GitopsClusterDocument, PipelineDocument } from '../../lib/config/schema.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { checkStoreLimits, STORE_LIMITS } from '../../lib/store/index.js';

const problemAt =
  (document: string) =>
  (path: readonly PropertyKey[], message: string): ConfigProblem => ({
    file: 'config.yaml',
    document,
    path: path.length > 0 ? formatPath(path) : undefined,
    message,
  });

function pipelineDocument(name: string, options: { env?: string; namespace?: string } = {}): PipelineDocument {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'web' },
      environments: [
        {
          name: options.env ?? 'dev',
          targets: [{ namespace: options.namespace ?? 'apps', clusterRef: { kind: 'GitopsCluster', name: 'prod' } }],
        },
      ],
    },
  };
}

const toStore = (documents: PipelineDocument[]) => ({
  pipelines: documents.map((document) => resolvePipeline(document)),
  pipelineDocuments: documents.map((document) => ({
    document,
    problemAt: problemAt(`Pipeline flux-system/${document.metadata.name}`),
  })),
  clusters: [],
});

describe('the store limits apply checks', () => {
  it('are DynamoDB’s, with a 4 KB margin on the item size', () => {
    assert.deepEqual(STORE_LIMITS, {
      itemBytes: 409_600,
      marginBytes: 4096,
      partitionKeyBytes: 2048,
      sortKeyBytes: 1024,
      nestingLevels: 32,
    });
  });

  it('a usage record shared by more pipelines than one item holds: refused at the applied pipeline’s target', () => {
    // Long names: each pipeline takes about 0.7 KB of the record of (prod, HelmRelease, apps).
    const name = (i: number) => `${'p'.repeat(240)}-${i}`;
    const stored = Array.from({ length: 1000 }, (_, i) => ({ pipeline: resolvePipeline(pipelineDocument(name(i))) }));
    const problems = checkStoreLimits(toStore([pipelineDocument('web')]), stored).map(formatProblem);
    assert.deepEqual(problems, [
      'config.yaml: Pipeline flux-system/web: spec.environments[0].targets[0]: 1,001 pipelines have HelmRelease ' +
        "targets in namespace apps of cluster flux-system/prod; the store's record of them takes 532 KB and holds " +
        'at most 396 KB (about 744 pipelines)',
    ]);
    // Re-applying one of the stored pipelines counts it once; a few hundred fit.
    assert.deepEqual(checkStoreLimits(toStore([pipelineDocument(name(0))]), stored.slice(0, 300)), []);
  });

  it('a key longer than DynamoDB allows (here an environment name of 200 "é": 1,200 bytes in the key, URI-encoded)', () => {
    const problems = checkStoreLimits(toStore([pipelineDocument('web', { env: 'é'.repeat(200) })]), []).map(
      formatProblem,
    );
    assert.deepEqual(problems, [
      'config.yaml: Pipeline flux-system/web: spec.environments[0].targets[0]: makes a sort key of 1,225 bytes; ' +
        "the store's sort keys hold at most 1,024 bytes (UTF-8): use shorter names",
    ]);
  });

  it('a GitopsCluster larger than one item (a 500 KB annotation)', () => {
    const document: GitopsClusterDocument = {
      apiVersion: 'gitops.weave.works/v1alpha1',
      kind: 'GitopsCluster',
      metadata: { name: 'prod', namespace: 'flux-system', annotations: { note: 'x'.repeat(500_000) } },
      spec: { eks: { clusterName: 'prod', region: 'eu-west-1' } },
    };
    const problems = checkStoreLimits(
      {
        pipelines: [],
        pipelineDocuments: [],
        clusters: [{ document, problemAt: problemAt('GitopsCluster flux-system/prod') }],
      },
      [],
    ).map(formatProblem);
    assert.deepEqual(problems, [
      'config.yaml: GitopsCluster flux-system/prod: the stored GitopsCluster takes 489 KB; the store holds at most 396 KB per cluster',
    ]);
  });
});
