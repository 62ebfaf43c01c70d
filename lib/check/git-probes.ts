// The reads the Git checks make, each once per run: environments that promote to the same repository with the same
// Secret share one opening (credentials, access), one read of each base branch and one marker scan of each commit.
// The repository is opened as the promoter opens it (repositoryAddress, the deployment's API base, host.open with the
// Secret's values), and every failure is the message the host's toPromotionError gives, which names the Secret and
// never shows a value.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { PullRequestPromotion } from '../pipeline/promotion.js';
import { repositoryAddress } from '../pipeline/repository-address.js';
import type { GitHost, HostRepository, RepositoryAccess } from '../promotion/pull-request/index.js';
import { deploymentsUnsupported, type DeploymentAccess } from '../promotion/pull-request/deployments.js';
import type { CheckReason } from './check-row.js';
import { scanMarkers, type MarkerFiles } from './marker-scan.js';
import type { CheckPorts } from './ports.js';
import { errorMessage } from '../util/error-message.js';

/** A failed read: why, and the line that says so. */
export interface ProbeFailure {
  ok: false;
  reason: CheckReason;
  message: string;
}

export interface OpenedRepository {
  ok: true;
  /** Identifies the opening (host type, API base, repository, Secret) in the memos. */
  id: string;
  host: GitHost;
  repository: HostRepository;
  secret: ObjectKey;
  /** The repository's web page: safe to show. */
  webUrl: string;
  access: RepositoryAccess;
}

export class GitProbes {
  private readonly openings = new Map<string, Promise<OpenedRepository | ProbeFailure>>();
  private readonly heads = new Map<string, Promise<{ ok: true; commit: string | undefined } | ProbeFailure>>();
  private readonly scans = new Map<string, Promise<{ ok: true; markers: MarkerFiles } | ProbeFailure>>();
  private readonly deployments = new Map<string, Promise<{ ok: true; access: DeploymentAccess } | ProbeFailure>>();

  constructor(
    private readonly ports: Pick<CheckPorts, 'secrets' | 'gitHost' | 'gitApiUrls'>,
    private readonly concurrency: number,
  ) {}

  /** The repository of a pull-request promotion, opened with the Secret in the pipeline's namespace. */
  open(spec: PullRequestPromotion, namespace: string): Promise<OpenedRepository | ProbeFailure> {
    const secret: ObjectKey = { namespace, name: spec.secretRef.name };
    const id = `${spec.type} ${this.ports.gitApiUrls?.[spec.type] ?? ''} ${spec.url} ${objectKeyString(secret)}`;
    return memo(this.openings, id, () => this.opening(id, spec, secret));
  }

  /** The head commit of a branch; undefined when it does not exist (or the credentials cannot see it). */
  branchHead(opened: OpenedRepository, branch: string) {
    return memo(this.heads, `${opened.id}\n${branch}`, () =>
      this.attempt(opened, 'branch-unreadable', async () => ({
        ok: true as const,
        commit: await opened.repository.branchHead(branch),
      })),
    );
  }

  /** Whether the credentials may record deployments on the repository (`deployments: true`). */
  deploymentAccess(opened: OpenedRepository) {
    return memo(this.deployments, opened.id, () =>
      this.attempt(opened, 'cannot-record-deployments', async () => {
        const read = opened.repository.deploymentAccess?.bind(opened.repository);
        if (!read) throw deploymentsUnsupported();
        return { ok: true as const, access: await read() };
      }),
    );
  }

  /** Which files of a commit hold which markers. */
  markers(opened: OpenedRepository, commit: string) {
    return memo(this.scans, `${opened.id}\n${commit}`, () =>
      this.attempt(opened, 'scan-failed', async () => ({
        ok: true as const,
        markers: await scanMarkers(opened.repository, commit, this.concurrency),
      })),
    );
  }

  private async opening(id: string, spec: PullRequestPromotion, secret: ObjectKey) {
    const secretName = `Secret ${objectKeyString(secret)}`;
    const fail = (reason: CheckReason, message: string): ProbeFailure => ({ ok: false, reason, message });
    const host = await this.ports.gitHost(spec.type);
    if (!host) return fail('host-unsupported', `the ${spec.type} Git provider is not available here`);
    const located = repositoryAddress(spec.type, spec.url);
    if (!located.ok) return fail('repository-unreadable', `the pull-request url ${located.problem}`);
    const { address } = located;
    const apiUrl = (this.ports.gitApiUrls?.[spec.type] ?? address.apiUrl).replace(/\/+$/, '');

    let values: Readonly<Record<string, string>> | undefined;
    try {
      values = await this.ports.secrets.getSecret(secret);
    } catch (error) {
      return fail('secret-unreadable', `cannot read ${secretName}: ${errorMessage(error)}`);
    }
    if (!values) {
      return fail(
        'secret-missing',
        `${secretName} not found: the ${spec.type} pull-request strategy needs ${host.neededKeys}`,
      );
    }
    let repository: HostRepository;
    try {
      repository = host.open(address, apiUrl, secret, values);
    } catch (error) {
      return fail('credentials-unusable', host.toPromotionError(error, secret).message);
    }
    try {
      const access = await repository.access();
      return { ok: true as const, id, host, repository, secret, webUrl: address.webUrl, access };
    } catch (error) {
      return fail('repository-unreadable', host.toPromotionError(error, secret).message);
    }
  }

  private async attempt<T>(
    opened: OpenedRepository,
    reason: CheckReason,
    read: () => Promise<T>,
  ): Promise<T | ProbeFailure> {
    try {
      return await read();
    } catch (error) {
      return { ok: false, reason, message: opened.host.toPromotionError(error, opened.secret).message };
    }
  }
}

function memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) {
    value = make();
    cache.set(key, value);
  }
  return value;
}
