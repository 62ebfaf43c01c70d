// The package as a user gets it: this repository copied aside (so that packing writes no dist/ into the working
// tree), packed with `npm pack` (its prepack builds and bundles), and installed with npm, offline, into a fresh CDK
// app in a temporary directory beside aws-cdk-lib and constructs, as the README's "Deploying to AWS" starts.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, statfs, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appLockfile, type Lockfile, type PackedManifest } from './app-lockfile.js';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';
import { REPO_ROOT } from '../support/repo-root.js';

export { REPO_ROOT };

/**
 * What a checkout holds that the package is not made from: installs (with the Node 22 of scripts/node22-checks.sh),
 * build and synth output, local data.
 */
const NOT_COPIED = new Set(['node_modules', '.git', 'dist', 'cdk.out', '.data', 'coverage', '.ci/.node22']);

/** npm with no network and nothing asked of the registry on the side (audit, funding, update notices). */
const NPM_ENVIRONMENT = {
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  // prepack must run even where a user's configuration turns scripts off.
  npm_config_ignore_scripts: 'false',
};

export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (a non-zero exit is a result; not starting, or the timeout, is an error). */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...NPM_ENVIRONMENT, ...options.env },
        timeout: options.timeoutMs ?? PATIENCE_MS,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error === null) return resolve({ code: 0, stdout, stderr });
        if (typeof error.code === 'number') return resolve({ code: error.code, stdout, stderr });
        reject(new Error(`${command} ${args.join(' ')} did not run to its end: ${error.message}\n${stderr}`));
      },
    );
  });
}

/** `npm pack --json`'s account of the tarball. */
export interface PackReport {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

export interface PackedApp {
  tarball: string;
  pack: PackReport;
  /** The fresh CDK app: its package.json, node_modules, and whatever a test writes there. */
  appDir: string;
  /** node_modules/pipeline-controller in the app. */
  installed: string;
  manifest: PackedManifest;
  cleanup(): Promise<void>;
}

async function copyCheckout(to: string): Promise<void> {
  await mkdir(to);
  for (const entry of await readdir(REPO_ROOT)) {
    if (NOT_COPIED.has(entry) || entry.endsWith('.tgz')) continue;
    await cp(path.join(REPO_ROOT, entry), path.join(to, entry), {
      recursive: true,
      filter: (source) => !NOT_COPIED.has(path.relative(REPO_ROOT, source)),
    });
  }
  // The build's tools (tsc, tsx, esbuild) and the dependencies it compiles against.
  await symlink(path.join(REPO_ROOT, 'node_modules'), path.join(to, 'node_modules'), 'dir');
}

function ok(result: CommandRun, what: string): CommandRun {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.stderr}\n${result.stdout}`);
  return result;
}

/** statfs's type of a memory-backed file system (Linux's TMPFS_MAGIC). */
const TMPFS = 0x01021994;
/** Room the copy, the build, the tarball and the app's node_modules need, with some to spare. */
const SCRATCH_BYTES = 2 * 1024 ** 3;

/**
 * Where the package is packed and installed: /dev/shm when it is memory-backed with room to spare, else the system's
 * temporary directory. The app's `npm ci` writes about 21,000 files (360 MB): on this project's machine that cost 17
 * CPU-s of the kernel's time on its disk, 5 in memory.
 */
async function scratchDirectory(): Promise<string> {
  const shm = await statfs('/dev/shm').catch(() => undefined);
  return shm && shm.type === TMPFS && shm.bavail * shm.bsize >= SCRATCH_BYTES ? '/dev/shm' : tmpdir();
}

export async function packIntoFreshApp(): Promise<PackedApp> {
  const root = await mkdtemp(path.join(await scratchDirectory(), 'pipeline-controller-package-'));
  try {
    const checkout = path.join(root, 'checkout');
    await copyCheckout(checkout);
    const packed = ok(await run('npm', ['pack', '--json', '--pack-destination', root], { cwd: checkout }), 'npm pack');
    // The JSON report follows whatever the prepack scripts printed.
    const [pack] = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[$/m))) as PackReport[];
    if (pack === undefined) throw new Error(`npm pack printed no report:\n${packed.stdout}`);
    const tarball = path.join(root, pack.filename);

    const manifest = JSON.parse(await readFile(path.join(checkout, 'package.json'), 'utf8')) as PackedManifest;
    const repositoryLock = JSON.parse(await readFile(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
    const appDir = path.join(root, 'app');
    await mkdir(appDir);
    const { lockfile, dependencies } = appLockfile(repositoryLock, manifest, tarball, 'fleet-promotions', [
      'aws-cdk-lib',
      'constructs',
    ]);
    const appManifest = { name: 'fleet-promotions', private: true, type: 'module', dependencies };
    await writeFile(path.join(appDir, 'package.json'), `${JSON.stringify(appManifest, null, 2)}\n`);
    await writeFile(path.join(appDir, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
    const installed = await run('npm', ['ci'], { cwd: appDir });
    if (installed.code !== 0 && installed.stderr.includes('ENOTCACHED')) {
      throw new Error(`npm's cache lacks a package the app needs; run \`npm ci\` here first:\n${installed.stderr}`);
    }
    ok(installed, 'npm ci in the app');
    return {
      tarball,
      pack,
      appDir,
      installed: path.join(appDir, 'node_modules', manifest.name),
      manifest,
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  } catch (error) {
    // A step that timed out may leave its children writing here; their leftovers must not hide why it failed.
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}
