/**
 * Monaco with only what the workbench uses: the editor core, YAML
 * highlighting and monaco-yaml's language service (completion, hover and
 * validation from a JSON schema). This module is only ever imported
 * dynamically, so none of it is fetched before the first screen.
 */
import * as monaco from 'monaco-editor/editor/editor.api.js';
import 'monaco-editor/languages/definitions/yaml/register.js';
import './contributions';
import EditorWorker from 'monaco-editor/editor/editor.worker.js?worker';
import { configureMonacoYaml, type MonacoYaml } from 'monaco-yaml';
import YamlWorker from './yaml.worker.ts?worker';

(self as unknown as { MonacoEnvironment: { getWorker(moduleId: string, label: string): Worker } }).MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
};

interface LegacyWorkerOptions {
  label?: string;
  createData?: unknown;
}

/**
 * monaco-yaml asks for its worker the pre-0.50 way (createWebWorker with a
 * label and createData); Monaco now takes the Worker itself. The worker's
 * bootstrap reads one message to start and the next as createData, as
 * Monaco's own language workers do.
 */
const monacoForYaml = {
  ...monaco,
  editor: {
    ...monaco.editor,
    createWebWorker: (options: LegacyWorkerOptions) => {
      const worker = new YamlWorker();
      worker.postMessage('ignore');
      worker.postMessage(options.createData);
      return monaco.editor.createWebWorker({ worker });
    },
  },
};

/** The one monaco-yaml instance (it allows one at a time); schemas are set per editor model. */
export const monacoYaml: MonacoYaml = configureMonacoYaml(monacoForYaml as unknown as typeof monaco, {
  enableSchemaRequest: false,
  hover: true,
  completion: true,
  validate: true,
  schemas: [],
});

export { monaco };
