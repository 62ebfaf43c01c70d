// The package-lock.json of a fresh CDK app that depends on the packed tarball, aws-cdk-lib and constructs, with every
// other version taken from this repository's package-lock.json. `npm ci --offline` installs from such a lock with no
// network: the tarballs are in npm's cache since this repository's own `npm ci`. A plain `npm install --offline
// <tarball> aws-cdk-lib constructs` cannot: it needs each package's registry document to pick a version, and
// `npm ci` never fetched those.

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  [field: string]: unknown;
}

export interface Lockfile {
  name?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

export interface PackedManifest {
  name: string;
  version: string;
  license?: string;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  bin?: Record<string, string>;
  engines?: Record<string, string>;
}

/** Where Node finds `name` from the package at `location` (`node_modules/a/node_modules/b`) in the repository. */
function resolveIn(packages: Lockfile['packages'], location: string, name: string): string | undefined {
  for (let base = location; ;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (base === '') return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent < 0 ? '' : base.slice(0, parent);
  }
}

export function appLockfile(
  repository: Lockfile,
  packed: PackedManifest,
  tarball: string,
  appName: string,
  alongside: readonly string[],
): { lockfile: Lockfile; dependencies: Record<string, string> } {
  const installed = new Map<string, LockEntry>();
  const pending: string[] = [];
  const require = (from: string, names: Record<string, string> | undefined, optional: boolean): void => {
    for (const name of Object.keys(names ?? {})) {
      const at = resolveIn(repository.packages, from, name);
      if (at === undefined) {
        if (optional) continue;
        throw new Error(`${name} (needed by ${from || 'the app'}) is not in this repository's package-lock.json`);
      }
      const entry = repository.packages[at];
      if (entry === undefined || installed.has(at)) continue;
      installed.set(at, entry);
      pending.push(at);
    }
  };
  // The packed package sits at node_modules/<name> as this repository's root does, so its dependencies resolve alike.
  require('', packed.dependencies, false);
  require('', Object.fromEntries(alongside.map((name) => [name, ''])), false);
  for (let at = pending.shift(); at !== undefined; at = pending.shift()) {
    const entry = repository.packages[at];
    require(at, entry?.dependencies, false);
    require(at, entry?.optionalDependencies, true);
    require(at, entry?.peerDependencies, true);
  }

  const version = (name: string): string => repository.packages[`node_modules/${name}`]?.version ?? '';
  const dependencies = {
    [packed.name]: `file:${tarball}`,
    ...Object.fromEntries(alongside.map((name) => [name, version(name)])),
  };
  const withoutRepositoryFlags = ({ dev: _dev, devOptional: _devOptional, peer: _peer, ...entry }: LockEntry) => entry;
  const lockfile: Lockfile = {
    name: appName,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: appName, dependencies },
      [`node_modules/${packed.name}`]: {
        version: packed.version,
        resolved: `file:${tarball}`,
        license: packed.license,
        dependencies: packed.dependencies,
        peerDependencies: packed.peerDependencies,
        peerDependenciesMeta: packed.peerDependenciesMeta,
        bin: packed.bin,
        engines: packed.engines,
      },
      ...Object.fromEntries(
        [...installed].sort(([a], [b]) => a.localeCompare(b)).map(([at, entry]) => [at, withoutRepositoryFlags(entry)]),
      ),
    },
  };
  return { lockfile, dependencies };
}
