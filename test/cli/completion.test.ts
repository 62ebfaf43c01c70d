// `pipelinectl completion bash|zsh`: the scripts, as the shells run them. Bash's is sourced in `bash` and its function
// called with COMP_WORDS and COMP_CWORD set as bash sets them on Tab; zsh's is checked by `zsh -n` and its function
// run with the completion system's builtins stubbed (the candidates it offers are printed), where zsh is installed.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runCli } from '../support/pipelinectl.js';

const exec = promisify(execFile);

function shellAvailable(shell: string): boolean {
  try {
    execFileSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `words` as a bash array literal: each word single-quoted. */
const bashArray = (words: readonly string[]) => words.map((word) => `'${word}'`).join(' ');

describe('pipelinectl completion', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pipelinectl-completion-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses a shell it has no script for', async () => {
    const result = await runCli(['completion', 'fish']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /'fish' is invalid for argument 'shell'\. Allowed choices are bash, zsh/);
  });

  describe('bash', { skip: shellAvailable('bash') ? false : 'bash is not installed' }, () => {
    let script: string;
    before(async () => {
      const result = await runCli(['completion', 'bash']);
      assert.equal(result.code, 0, result.stderr);
      script = path.join(dir, 'pipelinectl.bash');
      await writeFile(script, result.stdout);
    });

    /** What bash offers on Tab after `line` (its last word is the one being completed; '' for a new word). */
    async function complete(...words: string[]): Promise<string[]> {
      const program = [
        `source '${script}'`,
        `COMP_WORDS=(${bashArray(words)})`,
        `COMP_CWORD=${words.length - 1}`,
        'COMP_LINE="${COMP_WORDS[*]}"',
        'COMP_POINT=${#COMP_LINE}',
        '_pipelinectl pipelinectl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"',
        'printf "%s\\n" "${COMPREPLY[@]}"',
      ].join('\n');
      const { stdout } = await exec('bash', ['--norc', '--noprofile', '-c', program]);
      return stdout.split('\n').filter((word) => word !== '');
    }

    it('registers itself for pipelinectl', async () => {
      const { stdout } = await exec('bash', [
        '--norc',
        '--noprofile',
        '-c',
        `source '${script}'; complete -p pipelinectl`,
      ]);
      assert.equal(stdout.trim(), 'complete -F _pipelinectl pipelinectl');
    });

    it('completes `pipelinectl sta` to status', async () => {
      assert.deepEqual(await complete('pipelinectl', 'sta'), ['status']);
    });

    it('offers every command the help lists, and help', async () => {
      const help = await runCli(['--help']);
      const listed = [...help.stdout.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((match) => match[1]);
      assert.ok(listed.includes('approve') && listed.includes('completion'));
      assert.deepEqual(await complete('pipelinectl', ''), listed);
    });

    it("offers a command's options, and an option's fixed values", async () => {
      assert.deepEqual(await complete('pipelinectl', 'status', '--o'), ['--output']);
      assert.deepEqual(await complete('pipelinectl', 'status', '-o', ''), ['table', 'json', 'yaml']);
      assert.deepEqual(await complete('pipelinectl', 'explain', '--output', '=', 'j'), ['json']);
      assert.deepEqual(await complete('pipelinectl', 'history', '--type', 'approval-'), [
        'approval-requested',
        'approval-cleared',
      ]);
    });

    it("offers an argument's fixed values, after options and their values", async () => {
      assert.deepEqual(await complete('pipelinectl', 'get', '--data-dir', '.data', ''), [
        'pipelines',
        'clusters',
        'configsources',
        'configsource',
        'pipelinesets',
      ]);
      assert.deepEqual(await complete('pipelinectl', 'delete', '--dry-run', 'p'), ['pipeline', 'pipelineset']);
      assert.deepEqual(await complete('pipelinectl', 'completion', ''), ['bash', 'zsh']);
      assert.deepEqual(await complete('pipelinectl', 'help', 'app'), ['apply', 'approve']);
    });

    it('walks into subcommands (dlq list) and offers nothing for a NS/NAME argument', async () => {
      assert.deepEqual(await complete('pipelinectl', 'dlq', ''), ['list', 'redrive', 'help']);
      assert.deepEqual(await complete('pipelinectl', 'dlq', 'list', '--m'), ['--max', '--master-key-secret']);
      assert.deepEqual(await complete('pipelinectl', 'approve', 'flux-system/podinfo', ''), []);
    });
  });

  describe('zsh', { skip: shellAvailable('zsh') ? false : 'zsh is not installed (apt-get install zsh)' }, () => {
    let script: string;
    before(async () => {
      const result = await runCli(['completion', 'zsh']);
      assert.equal(result.code, 0, result.stderr);
      script = path.join(dir, '_pipelinectl');
      await writeFile(script, result.stdout);
    });

    /**
     * What the function hands zsh's completion system for `words`: each call to _describe, compadd or _files as one
     * line (`describe commands: serve demo …`). zsh filters those by what was typed; that part is zsh's own.
     */
    async function offered(...words: string[]): Promise<string[]> {
      const program = [
        'compdef() { : }',
        `source '${script}'`,
        'compadd() { [[ $1 == -a ]] && print -r -- "compadd: ${(P)2}" }',
        '_describe() { local -a entries; entries=("${(@P)4}"); print -r -- "describe $2: ${(j: :)${(@)entries%%:*}}" }',
        '_files() { print -r -- files }',
        'compset() { : }',
        `words=(${bashArray(words)})`,
        'CURRENT=$#words',
        // Its status says whether it offered anything (as a completion function's does): not this test's concern.
        '_pipelinectl || true',
      ].join('\n');
      const { stdout } = await exec('zsh', ['-f', '-c', program]);
      return stdout.split('\n').filter((line) => line !== '');
    }

    it('is valid zsh', async () => {
      await exec('zsh', ['-n', script]);
    });

    it('offers the commands, with their descriptions, to complete `pipelinectl sta`', async () => {
      const [line] = await offered('pipelinectl', 'sta');
      assert.match(line ?? '', /^describe commands: serve demo apply .* status .* completion help$/);
    });

    it("offers a command's options, an option's fixed values, and file names for any other value", async () => {
      assert.match((await offered('pipelinectl', 'status', '--o'))[0] ?? '', /^describe options: -o --output /);
      assert.deepEqual(await offered('pipelinectl', 'status', '-o', ''), ['compadd: table json yaml']);
      assert.deepEqual(await offered('pipelinectl', 'status', '--output=j'), ['compadd: table json yaml']);
      assert.deepEqual(await offered('pipelinectl', 'apply', '-f', ''), ['files']);
      assert.deepEqual(await offered('pipelinectl', 'get', ''), [
        'compadd: pipelines clusters configsources configsource pipelinesets',
      ]);
      assert.deepEqual(await offered('pipelinectl', 'approve', 'flux-system/podinfo', ''), []);
    });
  });
});
