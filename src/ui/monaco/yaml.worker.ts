// monaco-yaml's worker, re-exported from the app so Vite bundles it as one worker (see monaco-yaml's FAQ on Vite).
import 'monaco-yaml/yaml.worker.js';
