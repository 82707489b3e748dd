#!/usr/bin/env node
/**
 * Makes sure node_modules matches package-lock.json before the workbench
 * starts (`npm start` runs this first). When node_modules is missing, or the
 * lockfile npm keeps inside it (node_modules/.package-lock.json) disagrees
 * with package-lock.json, it runs `npm ci`; otherwise it returns at once.
 *
 *   node scripts/ensure-deps.mjs           install if needed
 *   node scripts/ensure-deps.mjs --check   only report; exit 1 when an install is needed
 *
 * Plain Node, no dependencies: it runs before any are installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockPath = join(root, 'package-lock.json');
const installedPath = join(root, 'node_modules', '.package-lock.json');

/** Node versions older than package.json's engines field cannot run Vite; say so plainly. */
function checkNodeVersion() {
  const wanted = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const match = /(\d+)\.(\d+)/.exec(wanted);
  if (!match) return;
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = [Number(match[1]), Number(match[2])];
  if (major < needMajor || (major === needMajor && minor < needMinor)) {
    console.error(`kubesim needs Node ${wanted}; this is Node ${process.versions.node}.`);
    process.exit(1);
  }
}

/**
 * Why node_modules is stale, or undefined when it is current. Entries npm
 * skipped on this platform (optional ones, like other systems' esbuild
 * binaries) may be missing; every other entry must match its version.
 */
function staleReason() {
  if (!existsSync(lockPath)) return undefined; // nothing to compare against; leave node_modules alone
  if (!existsSync(join(root, 'node_modules'))) return 'node_modules is missing';
  if (!existsSync(installedPath)) return 'node_modules was not installed from package-lock.json';
  // npm rewrites its hidden lockfile on every install, so a newer one is current.
  if (statSync(installedPath).mtimeMs >= statSync(lockPath).mtimeMs) return undefined;
  const wanted = JSON.parse(readFileSync(lockPath, 'utf8')).packages ?? {};
  const installed = JSON.parse(readFileSync(installedPath, 'utf8')).packages ?? {};
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === '' || entry.link) continue;
    const have = installed[path];
    if (!have) {
      if (entry.optional || entry.devOptional) continue;
      return `${path} is not installed`;
    }
    if (have.version !== entry.version) return `${path} is ${have.version}, package-lock.json wants ${entry.version}`;
  }
  for (const path of Object.keys(installed)) {
    if (!(path in wanted)) return `${path} is installed but no longer in package-lock.json`;
  }
  return undefined;
}

checkNodeVersion();
const reason = staleReason();
if (process.argv.includes('--check')) {
  console.log(reason ? `install needed: ${reason}` : 'dependencies are up to date');
  process.exit(reason ? 1 : 0);
}
if (reason) {
  console.log(`Installing dependencies (${reason}): npm ci`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(result.error ? `npm ci could not run: ${result.error.message}` : `npm ci failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}
