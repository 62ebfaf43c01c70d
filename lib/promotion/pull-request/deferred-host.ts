// A Git host whose adapter, and the host's API client under it, is loaded on the first promotion to that host rather
// than when the process starts. A deployment promotes to one or two hosts, but the verifier offers all
// four: loading every client at start cost its cold start tens of milliseconds and megabytes of memory for nothing.
//
// What the promoter needs before a repository is read is known without the client: the host's type, the Secret keys
// it reads and its longest body. The Secret's values are checked before anything is loaded, so a Secret without
// usable credentials fails as it does with the adapter itself. The first call on an opened repository loads the
// adapter (once per process: its client cache outlives the promotion, as the adapter's own does) and opens the
// repository with it.
//
// A client that cannot be loaded fails the promotion with a PromotionError that names the host. It is not retryable:
// a module that failed to evaluate stays failed in this process (a bundle's lazily evaluated module is not evaluated
// twice), and a missing or broken package is for a person to fix in the deployment.
import { ArchiveUnsupportedError, type ArchiveReadOptions } from './archive-read.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { GitProviderType } from '../../pipeline/promotion.js';
import type { RepositoryAddress } from '../../pipeline/repository-address.js';
import { PromotionError } from '../port.js';
import type {
  BranchWrite,
  GitHost,
  HostRepository,
  PullRequestSummary,
  PullRequestWrite,
  RepositoryAccess,
  RepositoryFile,
} from './host.js';
import {
  deploymentsUnsupported,
  type DeploymentAccess,
  type DeploymentReport,
  type RecordedDeployment,
} from './deployments.js';
import { errorMessage } from '../../util/error-message.js';
import { moduleLoadError } from '../deferred-promoter.js';

type SecretValues = Readonly<Record<string, string>>;

export interface DeferredGitHostOptions {
  type: GitProviderType;
  /** The host as people name it (`GitHub`, `Azure DevOps`), for the error when its client cannot be loaded. */
  hostName: string;
  /** As GitHost's: the Secret keys the host reads. */
  neededKeys: string;
  /** As GitHost's: the longest body the host takes, when shorter than the promoter's default. */
  maxBodyLength?: number;
  /**
   * Throws the adapter's own PromotionError when the Secret's values hold no usable credentials (the one the
   * adapter's `open` throws); loads nothing.
   */
  checkCredentials(values: SecretValues, secret: ObjectKey): void;
  /** Loads the adapter (a dynamic `import()` of its module) and builds it; called at most once. */
  load(): Promise<GitHost>;
}

/** A GitHost that loads its adapter on the first call made on a repository it opened. */
export function deferredGitHost(options: DeferredGitHostOptions): GitHost {
  const { type, hostName, neededKeys, maxBodyLength } = options;
  let loading: Promise<GitHost> | undefined;
  let loaded: GitHost | undefined;
  const adapter = (): Promise<GitHost> =>
    (loading ??= options.load().then(
      (host) => (loaded = host),
      (error: unknown) => {
        throw moduleLoadError(
          `${hostName} client`,
          `no pull request can be opened on ${hostName} by this deployment`,
          error,
        );
      },
    ));
  return {
    type,
    neededKeys,
    ...(maxBodyLength === undefined ? {} : { maxBodyLength }),
    open(address: RepositoryAddress, apiUrl: string, secret: ObjectKey, values: SecretValues): HostRepository {
      options.checkCredentials(values, secret);
      return new DeferredRepository(async () => (await adapter()).open(address, apiUrl, secret, values));
    },
    toPromotionError(error: unknown, secret: ObjectKey): PromotionError {
      // Only a repository the adapter opened can have failed with one of its client's errors.
      if (loaded) return loaded.toPromotionError(error, secret);
      if (error instanceof PromotionError) return error;
      const message = errorMessage(error);
      return new PromotionError('Unknown', `${hostName}: ${message}`, { cause: error });
    },
  };
}

/** A repository opened by the adapter on its first use; every call waits for that one opening. */
class DeferredRepository implements HostRepository {
  private opened: Promise<HostRepository> | undefined;

  constructor(private readonly open: () => Promise<HostRepository>) {}

  private repository(): Promise<HostRepository> {
    return (this.opened ??= this.open());
  }

  async access(): Promise<RepositoryAccess> {
    return (await this.repository()).access();
  }

  async branchHead(branch: string): Promise<string | undefined> {
    return (await this.repository()).branchHead(branch);
  }

  async listFiles(commit: string): Promise<RepositoryFile[]> {
    return (await this.repository()).listFiles(commit);
  }

  async readFile(file: RepositoryFile, commit: string): Promise<string> {
    return (await this.repository()).readFile(file, commit);
  }

  /** Where the host gives no archive, a failure like any other: the promoter reads file by file. */
  async readArchive(commit: string, options: ArchiveReadOptions): Promise<void> {
    const repository = await this.repository();
    if (!repository.readArchive) throw new ArchiveUnsupportedError();
    return repository.readArchive(commit, options);
  }

  async commitAuthor(commit: string): Promise<string | undefined> {
    return (await this.repository()).commitAuthor(commit);
  }

  async writeBranch(write: BranchWrite): Promise<void> {
    return (await this.repository()).writeBranch(write);
  }

  async openOrUpdatePullRequest(write: PullRequestWrite): Promise<string> {
    return (await this.repository()).openOrUpdatePullRequest(write);
  }

  async pullRequestsFrom(branch: string): Promise<PullRequestSummary[]> {
    return (await this.repository()).pullRequestsFrom(branch);
  }

  async recordDeployment(report: DeploymentReport): Promise<RecordedDeployment> {
    const repository = await this.repository();
    if (!repository.recordDeployment) throw deploymentsUnsupported();
    return repository.recordDeployment(report);
  }

  async deploymentAccess(): Promise<DeploymentAccess> {
    const repository = await this.repository();
    if (!repository.deploymentAccess) throw deploymentsUnsupported();
    return repository.deploymentAccess();
  }
}
