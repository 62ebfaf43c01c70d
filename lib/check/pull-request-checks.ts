// The rows of an environment promoted by pull request, in the order a promotion needs them: the repository can be
// read with the Pipeline's Secret (`git-repository`), those credentials may push (`git-permissions`), the base branch
// exists (`base-branch`), and a file of it holds the environment's marker (`markers`). A row whose ground failed is
// skipped, saying which. A missing marker names its near misses; a file that also holds the marker of another
// environment of the pipeline, or whose path names another environment, makes the row a warning (marker-hints.ts).
import { objectKeyString } from '../pipeline/model.js';
import type { PullRequestPromotion } from '../pipeline/promotion.js';
import { markerFor } from '../promotion/markers.js';
import type { CheckKind } from './check-kinds.js';
import type { CheckReason, CheckRow } from './check-row.js';
import type { GitProbes, OpenedRepository } from './git-probes.js';
import { filesMixingEnvironments, filesOfOtherEnvironments, nearMisses, type MarkerNearMiss } from './marker-hints.js';

/** How many of the files holding a marker a row's message names (the row's `files` has them all). */
const FILES_NAMED = 3;

export async function pullRequestRows(
  place: { pipeline: string; environment: string },
  pipeline: { namespace: string; name: string; environments: readonly { name: string }[] },
  spec: PullRequestPromotion,
  probes: GitProbes,
): Promise<CheckRow[]> {
  const row = (kind: CheckKind, outcome: CheckRow['outcome'], reason: CheckReason, message: string): CheckRow => ({
    ...place,
    kind,
    outcome,
    reason,
    message,
  });
  const skip = (kinds: readonly CheckKind[], because: string) =>
    kinds.map((kind) => row(kind, 'skipped', 'earlier-check-failed', `not checked: ${because}`));
  const base = spec.baseBranch;
  const noScan = () => skip(['markers'], `no base branch ${base} to look for markers in`);

  const opened = await probes.open(spec, pipeline.namespace);
  if (!opened.ok) {
    return [
      row('git-repository', 'failed', opened.reason, opened.message),
      ...skip(
        [
          'git-permissions',
          ...(spec.deployments === true ? (['git-deployments'] as const) : []),
          'base-branch',
          'markers',
        ],
        'the repository could not be read',
      ),
    ];
  }
  const { webUrl, access } = opened;
  const secret = `Secret ${objectKeyString(opened.secret)}`;
  const rows = [row('git-repository', 'ok', 'repository-readable', `${webUrl} can be read with ${secret}`)];
  if (access.canPush === true) {
    rows.push(row('git-permissions', 'ok', 'can-push', `${secret} may push to ${webUrl} (${access.detail})`));
  } else if (access.canPush === false) {
    rows.push(
      row(
        'git-permissions',
        'failed',
        'cannot-push',
        `${secret} cannot push to ${webUrl}, which a promotion does to open a pull request (${access.detail})`,
      ),
    );
  } else {
    rows.push(
      row('git-permissions', 'warning', 'push-unknown', `cannot tell whether ${secret} may push: ${access.detail}`),
    );
  }

  if (spec.deployments === true) rows.push(await deploymentsRow(row, probes, opened, secret));

  const head = await probes.branchHead(opened, base);
  if (!head.ok) return [...rows, row('base-branch', 'failed', head.reason, head.message), ...noScan()];
  if (head.commit === undefined) {
    return [
      ...rows,
      row(
        'base-branch',
        'failed',
        'branch-missing',
        `the base branch ${base} does not exist in ${webUrl}, or ${secret} cannot see it`,
      ),
      ...noScan(),
    ];
  }
  rows.push(row('base-branch', 'ok', 'branch-exists', `the base branch ${base} is at ${head.commit.slice(0, 12)}`));

  const marker = markerFor(pipeline.namespace, pipeline.name, place.environment);
  const written = `{"$promotion": "${marker}"}`;
  const scan = await probes.markers(opened, head.commit);
  if (!scan.ok) return [...rows, row('markers', 'failed', scan.reason, scan.message)];
  const files = [...(scan.markers.get(marker) ?? [])];
  if (files.length === 0) {
    const near = nearMisses(marker, pipeline, scan.markers);
    const failed = row(
      'markers',
      'failed',
      'no-marker',
      `no file holds ${written} in ${webUrl} at ${base}: a promotion to ${place.environment} would fail` +
        (near.length > 0 ? `; found ${near.map(nearMissText).join('; ')}` : ''),
    );
    return [...rows, near.length > 0 ? { ...failed, nearMisses: near } : failed];
  }
  const found = `${written} in ${files.length === 1 ? '1 file' : `${files.length} files`}: ${named(files)}`;
  const mixedFiles = filesMixingEnvironments(marker, files, scan.markers);
  const misplacedFiles = filesOfOtherEnvironments(place.environment, files, pipeline.environments);
  if (mixedFiles.length > 0 || misplacedFiles.length > 0) {
    const why = [
      ...mixedFiles.map((file) => `${file.path} also holds ${file.markers.join(', ')}`),
      ...misplacedFiles.map(
        (file) => `${file.path} is in ${file.environment}'s place (its path names ${file.environment})`,
      ),
    ].join('; ');
    const message = `${found}; ${why}: a promotion to ${place.environment} would edit another environment's file (a copy-paste mistake?)`;
    const reason = mixedFiles.length > 0 ? 'mixed-environments' : 'misplaced-marker';
    return [
      ...rows,
      {
        ...row('markers', 'warning', reason, message),
        files,
        ...(mixedFiles.length > 0 ? { mixedFiles } : {}),
        ...(misplacedFiles.length > 0 ? { misplacedFiles } : {}),
      },
    ];
  }
  return [...rows, { ...row('markers', 'ok', 'markers-found', found), files }];
}

/** Whether the credentials may record the rollouts on the host, and which permission is missing (docs/deployments.md). */
async function deploymentsRow(
  row: (kind: CheckKind, outcome: CheckRow['outcome'], reason: CheckReason, message: string) => CheckRow,
  probes: GitProbes,
  opened: OpenedRepository,
  secret: string,
): Promise<CheckRow> {
  const read = await probes.deploymentAccess(opened);
  const where = opened.webUrl;
  if (!read.ok) return row('git-deployments', 'failed', read.reason, read.message);
  const { canRecord, detail } = read.access;
  if (canRecord === true) {
    return row(
      'git-deployments',
      'ok',
      'can-record-deployments',
      `${secret} may record deployments on ${where} (${detail})`,
    );
  }
  if (canRecord === false) {
    return row(
      'git-deployments',
      'failed',
      'cannot-record-deployments',
      `${secret} cannot record deployments on ${where}, which deployments: true does once a pull request is merged (${detail})`,
    );
  }
  return row(
    'git-deployments',
    'warning',
    'deployments-unknown',
    `cannot tell whether ${secret} may record deployments: ${detail}`,
  );
}

function named(files: readonly string[]): string {
  return files.slice(0, FILES_NAMED).join(', ') + (files.length > FILES_NAMED ? ', …' : '');
}

function nearMissText(near: MarkerNearMiss): string {
  return `${near.marker} in ${named(near.files)}`;
}
