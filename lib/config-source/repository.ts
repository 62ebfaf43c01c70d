// Reading a ConfigSource's repository through the Git host adapters the pull requests use (no clone): the branch
// head in one request, then the YAML files under the source's path at that commit, from one archive of the commit
// where there are more than a few to read and the host gives archives (archived-files.ts, as the marker scan reads
// them), else file by file. What goes wrong is a named reason (Flux's): the credentials rejected, the branch or path
// not there, the host not answering.
import { MAX_FILE_BYTES } from '../config/limits.js';
import type { ConfigSourceDocument } from '../config/schema.js';
import type { Logger } from '../logging/logger.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { GitProviderType } from '../pipeline/promotion.js';
import { repositoryAddress, repositoryPath, repositoryTypeOf } from '../pipeline/repository-address.js';
import { isRetried } from '../promotion/failure-kind.js';
import { readFilesFromArchive } from '../promotion/pull-request/archived-files.js';
import type { GitHost, HostRepository, RepositoryFile } from '../promotion/pull-request/host.js';
import {
  ArchiveTooLargeError,
  DEFAULT_ARCHIVE_LIMITS,
  mebibytes,
  type ArchiveCaps,
} from '../promotion/pull-request/archive-read.js';
import type { SecretSource } from '../secrets/port.js';
import type { ConfigSyncReason } from '../store/port.js';
import { mapLimit } from '../util/map-limit.js';
import { errorMessage } from '../util/error-message.js';

/** YAML files read from one commit at most; more is refused rather than read (docs/config-sources.md, "Limits"). */
export const MAX_SOURCE_FILES = 2_000;

/**
 * The text read from one commit at most, over all its files: eight files at `apply`'s size limit. Reading stops
 * once it is passed, so that a folder of many large files cannot take the verifier's memory.
 */
export const MAX_SOURCE_BYTES = 8 * MAX_FILE_BYTES;

/** Files read at once. */
const READ_CONCURRENCY = 8;

const YAML_FILE = /\.ya?ml$/i;

/**
 * The files a source reads of a repository's: the `.yaml`/`.yml` files under its folder (`repositoryPath`'s form,
 * `''` for the root), recursively, in path order.
 */
export function filesInFolder<File extends { path: string }>(files: readonly File[], folder: string): File[] {
  const prefix = folder === '' ? '' : `${folder}/`;
  return files
    .filter((file) => file.path.startsWith(prefix) && YAML_FILE.test(file.path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface GitAccess {
  hosts: readonly GitHost[];
  secrets: SecretSource;
  /** The API base for every repository of a type, instead of the one derived from the URL (as for pull requests). */
  apiUrls?: Partial<Record<GitProviderType, string>>;
  /** The most compressed bytes of one commit's archive read; default DEFAULT_ARCHIVE_LIMITS'. */
  maxArchiveBytes?: number;
  /** The most bytes one commit's archive expands to; default DEFAULT_ARCHIVE_LIMITS'. */
  maxExpandedBytes?: number;
}

/** Why the repository could not be read: `retry` when trying again later may get past it. */
export class SourceReadError extends Error {
  override name = 'SourceReadError';
  constructor(
    readonly reason: Exclude<ConfigSyncReason, 'Succeeded' | 'Pending' | 'Conflict'>,
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

/** A file of the folder: its text, or its size when the listing showed it over `apply`'s limit (left unread). */
export type SourceFile = { path: string; text: string } | { path: string; tooLarge: number };

/** One ConfigSource's repository, opened with its Secret's credentials. */
export class SourceRepository {
  private constructor(
    private readonly host: GitHost,
    private readonly repository: HostRepository,
    private readonly secret: ObjectKey,
    readonly webUrl: string,
    private readonly folder: string,
    private readonly archiveCaps: ArchiveCaps,
    private readonly logger: Pick<Logger, 'warn'> | undefined,
  ) {}

  /** `logger` is told when the host's archive of a commit cannot be read and the files are read one by one. */
  static async open(
    document: ConfigSourceDocument,
    access: GitAccess,
    logger?: Pick<Logger, 'warn'>,
  ): Promise<SourceRepository> {
    const { spec } = document;
    const type = repositoryTypeOf(spec.url, spec.type);
    const host = type && access.hosts.find((each) => each.type === type);
    if (!type || !host) {
      throw new SourceReadError('NotFound', `no ${type ?? 'known'} Git host serves ${spec.url}`, false);
    }
    const located = repositoryAddress(type, spec.url);
    if (!located.ok) throw new SourceReadError('NotFound', `the url ${located.problem}`, false);
    const secret = { namespace: keyOfMetadata(document.metadata).namespace, name: spec.secretRef.name };
    let values: Readonly<Record<string, string>> | undefined;
    try {
      values = await access.secrets.getSecret(secret);
    } catch (error) {
      throw new SourceReadError(
        'GitUnavailable',
        `cannot read Secret ${objectKeyString(secret)}: ${errorMessage(error)}`,
        true,
      );
    }
    if (!values) {
      throw new SourceReadError(
        'NotFound',
        `Secret ${objectKeyString(secret)} not found: it holds the ${type} credentials (${host.neededKeys})`,
        false,
      );
    }
    const apiUrl = (access.apiUrls?.[type] ?? located.address.apiUrl).replace(/\/+$/, '');
    const folder = repositoryPath(spec.path ?? '') ?? '';
    try {
      const repository = host.open(located.address, apiUrl, secret, values);
      const caps = {
        maxArchiveBytes: access.maxArchiveBytes ?? DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes,
        maxExpandedBytes: access.maxExpandedBytes ?? DEFAULT_ARCHIVE_LIMITS.maxExpandedBytes,
      };
      return new SourceRepository(host, repository, secret, located.address.webUrl, folder, caps, logger);
    } catch (error) {
      throw readError(host, error, secret);
    }
  }

  /** The head commit of `branch` (one request). */
  async head(branch: string): Promise<string> {
    const head = await this.call(() => this.repository.branchHead(branch));
    if (head === undefined) {
      throw new SourceReadError(
        'NotFound',
        `branch ${branch} not found in ${this.webUrl} (or the credentials of Secret ` +
          `${objectKeyString(this.secret)} cannot see it)`,
        false,
      );
    }
    return head;
  }

  /** The YAML files under the source's path at `commit`, in path order. */
  async files(commit: string): Promise<SourceFile[]> {
    const all = await this.call(() => this.repository.listFiles(commit));
    const where = this.folder === '' ? 'the repository' : `path ${this.folder}`;
    if (this.folder !== '' && all.some((file) => file.path === this.folder)) {
      throw new SourceReadError('NotFound', `${where} is a file: name the folder that holds it`, false);
    }
    const wanted = filesInFolder(all, this.folder);
    if (wanted.length === 0) {
      throw new SourceReadError(
        'NotFound',
        `${where} holds no .yaml or .yml file at ${commit.slice(0, 12)}: nothing is applied (and nothing pruned)`,
        false,
      );
    }
    if (wanted.length > MAX_SOURCE_FILES) {
      throw new SourceReadError(
        'ValidationFailed',
        `${where} holds ${count(wanted.length)} YAML files, more than the ${count(MAX_SOURCE_FILES)} a ConfigSource ` +
          'reads: point it at a narrower folder',
        false,
      );
    }
    // A file over the size limit is refused by the loader, by its path, as `apply` refuses it; unread when the
    // listing gave its size. The text read from one commit is bounded before reading where the sizes are known, and
    // while reading otherwise.
    const tooMuch = () =>
      new SourceReadError(
        'ValidationFailed',
        `${where} holds more than the ${MAX_SOURCE_BYTES / (1024 * 1024)} MiB of YAML a ConfigSource reads at ` +
          `${commit.slice(0, 12)}: point it at a narrower folder`,
        false,
      );
    const isTooLarge = (file: RepositoryFile) => file.size !== undefined && file.size > MAX_FILE_BYTES;
    const listedBytes = wanted.reduce((sum, file) => sum + (isTooLarge(file) ? 0 : (file.size ?? 0)), 0);
    if (listedBytes > MAX_SOURCE_BYTES) throw tooMuch();
    const toRead = wanted.filter((file) => !isTooLarge(file));
    const archived = await this.fromArchive(commit, toRead);
    let bytes = 0;
    const counted = (text: string) => {
      bytes += Buffer.byteLength(text, 'utf8');
      if (bytes > MAX_SOURCE_BYTES) throw tooMuch();
      return text;
    };
    // What the archive gave is counted first: when it held too much, no file is read on its own.
    for (const file of toRead) {
      const text = archived.get(file.blobId);
      if (text !== undefined) counted(text);
    }
    return mapLimit(wanted, READ_CONCURRENCY, async (file): Promise<SourceFile> => {
      if (isTooLarge(file)) return { path: file.path, tooLarge: file.size ?? 0 };
      const text = archived.get(file.blobId);
      if (text !== undefined) return { path: file.path, text };
      return { path: file.path, text: counted(await this.call(() => this.repository.readFile(file, commit))) };
    });
  }

  /**
   * The files' texts by blob id from the commit's archive (archived-files.ts), within the limits a file-by-file read
   * keeps: each file up to `apply`'s, reading stopped past the commit's. Those it does not give are read one by one.
   */
  private async fromArchive(commit: string, files: readonly RepositoryFile[]): Promise<Map<string, string>> {
    try {
      return await readFilesFromArchive(this.repository, commit, files, {
        limits: { maxFileBytes: MAX_FILE_BYTES, ...this.archiveCaps },
        maxKeptBytes: MAX_SOURCE_BYTES,
        repository: this.webUrl,
        logger: this.logger,
      });
    } catch (error) {
      if (!(error instanceof ArchiveTooLargeError)) throw readError(this.host, error, this.secret);
      throw new SourceReadError(
        'ValidationFailed',
        `the archive of ${commit.slice(0, 12)} in ${this.webUrl} ` +
          `${error.measure === 'compressed' ? 'is over' : 'expands to over'} the ${mebibytes(error.maxBytes)} MiB ` +
          `a ConfigSource ${error.measure === 'compressed' ? 'reads' : 'unpacks'} of a commit in one request: ` +
          'keep its configuration in a smaller repository',
        false,
      );
    }
  }

  /** The commit's author as the host reports it (one request); undefined when it says none or cannot be read. */
  async author(commit: string): Promise<string | undefined> {
    try {
      return await this.repository.commitAuthor(commit);
    } catch {
      // Who made the commit is worth showing, not worth failing a sync over.
      return undefined;
    }
  }

  private async call<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw readError(this.host, error, this.secret);
    }
  }
}

function readError(host: GitHost, error: unknown, secret: ObjectKey): SourceReadError {
  if (error instanceof SourceReadError) return error;
  const failure = host.toPromotionError(error, secret);
  const reason =
    failure.kind === 'Unauthorized' || failure.kind === 'Forbidden'
      ? 'Unauthorized'
      : failure.kind === 'NotFound'
        ? 'NotFound'
        : 'GitUnavailable';
  return new SourceReadError(reason, failure.message, isRetried(failure.kind));
}

const count = (value: number) => value.toLocaleString('en-US');
