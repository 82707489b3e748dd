/**
 * --admission-control-config-file: kube-apiserver's AdmissionConfiguration
 * (apiserver.config.k8s.io/v1), one entry per plugin with its configuration
 * inline or in a file at `path` (relative to this file). kubesim reads the
 * PodSecurity entry (a PodSecurityConfiguration: defaults and exemptions);
 * the core validates it.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const groupVersions = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];

export interface AdmissionPluginConfigurations {
  /** The PodSecurity plugin's configuration object, when the file has one. */
  podSecurity?: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the file; a malformed one throws with the path in the message, and the host does not start. */
export function readAdmissionConfiguration(path: string): AdmissionPluginConfigurations {
  const doc: unknown = parseYaml(readFileSync(path, 'utf8'));
  if (!isRecord(doc) || doc['kind'] !== 'AdmissionConfiguration' || !groupVersions.includes(String(doc['apiVersion']))) {
    throw new Error(`${path}: expected kind AdmissionConfiguration of apiVersion ${groupVersions[0]}`);
  }
  const plugins = Array.isArray(doc['plugins']) ? doc['plugins'] : [];
  const out: AdmissionPluginConfigurations = {};
  for (const plugin of plugins) {
    if (!isRecord(plugin) || plugin['name'] !== 'PodSecurity') continue;
    let configuration: unknown = plugin['configuration'];
    if (configuration === undefined && typeof plugin['path'] === 'string') {
      const file = isAbsolute(plugin['path']) ? plugin['path'] : join(dirname(path), plugin['path']);
      configuration = parseYaml(readFileSync(file, 'utf8'));
    }
    if (!isRecord(configuration)) throw new Error(`${path}: plugin PodSecurity: no configuration`);
    out.podSecurity = configuration;
  }
  return out;
}
