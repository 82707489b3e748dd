/** /version: the Kubernetes version this server implements (version.Info). */
export interface VersionInfo {
  major: string;
  minor: string;
  emulationMajor: string;
  emulationMinor: string;
  minCompatibilityMajor: string;
  minCompatibilityMinor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export function versionInfo(kubernetesVersion: string): VersionInfo {
  const [major = '1', minor = '0'] = kubernetesVersion.replace(/^v/, '').split('.');
  const prevMinor = String(Math.max(0, Number(minor) - 1));
  return {
    major,
    minor,
    emulationMajor: major,
    emulationMinor: minor,
    minCompatibilityMajor: major,
    minCompatibilityMinor: prevMinor,
    gitVersion: `v${kubernetesVersion.replace(/^v/, '')}+kubesim`,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-11-01T00:00:00Z',
    goVersion: 'go1.25.0',
    compiler: 'gc',
    platform: 'js/wasm',
  };
}
