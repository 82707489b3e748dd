/** `npm run serve`: start the Node host with kube-apiserver-style flags. */
import { FlagError, flagHelp, parseFlags } from './flags';
import { startHost } from './host';

async function main(): Promise<void> {
  // `run scenario.yaml`: play a workbench scenario headless; the exit code says whether its expectations held.
  if (process.argv[2] === 'run') {
    const { runScenarioCommand } = await import('./scenario');
    process.exit(await runScenarioCommand(process.argv.slice(3)));
  }
  // `check manifests.yaml ...`: the removed-API check; exit code 3 when a removed apiVersion is found.
  if (process.argv[2] === 'check') {
    const { runCheckCommand } = await import('./check');
    process.exit(await runCheckCommand(process.argv.slice(3)));
  }
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n\n${flagHelp}`);
      process.exit(1);
    }
    throw e;
  }
  // GA and deprecated feature gates being set are logged, as kube-apiserver's feature gate does.
  for (const w of flags.warnings ?? []) process.stderr.write(`W ${w}\n`);
  if (flags.help) {
    process.stdout.write(flagHelp);
    return;
  }
  let host;
  try {
    host = await startHost(flags);
  } catch (e) {
    // A bad --runtime-config or a busy port stops the server at start, as kube-apiserver does.
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  process.stdout.write(`kubesim serving on ${host.url}${host.secureUrl ? ` and ${host.secureUrl}` : ''} (store: ${flags.store})\n`);
  process.stdout.write(`kubeconfig written to ${host.kubeconfigPath}\n`);
  if (host.leaderIdentity) process.stdout.write(`leader election identity: ${host.leaderIdentity}\n`);
  process.stdout.write(`  export KUBECONFIG=${host.kubeconfigPath}\n`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: shutting down\n`);
    await host.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  process.stderr.write(`kubesim: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
