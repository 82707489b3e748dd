/**
 * Scenarios in the workbench: edit one as YAML, replay it or step through
 * it against this tab's API server, save it in the browser, load or
 * download it as a file, and share it as a link. Running it first switches
 * the tab's server to the scenario's settings (authorization mode, feature
 * gates, controllers, fake clock): the service worker is registered again over a page reload, after
 * which the run resumes (resume.ts). The steps are played as
 * the headless runner (`npm run serve -- run scenario.yaml`) does: as an
 * admin identity that impersonates each step's `as:` user; `advanceClock`
 * steps move the tab's fake clock through POST /debug/kubesim/clock.
 */
import { useEffect, useRef, useState } from 'react';
import { traceOf } from '../../api';
import { StatusError } from '../../common';
import { LazyCodeEditor } from '../../monaco';
import { useWorkbench } from '../../store';
import { runStep, applyObjects, clockAdvancer, impersonationHeaders, type ScenarioTarget, type ScenarioVariables, type StepResult } from './runner';
import { describeStep, parseScenario } from './scenario';
import { readServerSettings, scenarioServerSettings, scenarioToken, serverSettingsChanges, writeServerSettings } from './serverSettings';
import { saveResume, takeResume } from './resume';
import { LESSONS } from './lessons';
import { scenarioFragment } from './share';

const SAVED_KEY = 'kubesim.scenarios';

function savedScenarios(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(SAVED_KEY) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

export function ScenarioPanel({ reload = () => location.reload() }: { reload?: () => void }) {
  const draft = useWorkbench((s) => s.scenarioDraft);
  const setDraft = useWorkbench((s) => s.setScenarioDraft);
  const [results, setResults] = useState<StepResult[]>([]);
  const [setupError, setSetupError] = useState<string | null>(null);
  const [started, setStarted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState('');
  const [saved, setSaved] = useState(savedScenarios);
  const [applied, setApplied] = useState<string[]>([]);
  // What `save:` steps read, for $(name) in the steps after them.
  const vars = useRef<ScenarioVariables>({});
  const parsed = parseScenario(draft);
  const scenario = parsed.ok ? parsed.scenario : undefined;
  const wanted = scenario && scenarioServerSettings(scenario.settings);
  const pending = wanted ? serverSettingsChanges(readServerSettings(), wanted) : [];
  const recordExchange = useWorkbench((s) => s.recordExchange);
  // The page's own fetch, through the service worker, as the scenario identity; `as:` users are impersonated.
  // Each request asks for its trace, so the Trace panel explains the scenario's steps too.
  const target: ScenarioTarget = {
    fetch: async (request) => {
      if (!request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${scenarioToken()}`);
      request.headers.set('X-Kubesim-Trace', '1');
      const response = await fetch(request);
      const url = new URL(request.url);
      recordExchange({ method: request.method, path: url.pathname + url.search, status: response.status, trace: traceOf(response) });
      return response;
    },
    identify: impersonationHeaders,
    baseUrl: location.origin,
  };
  if (readServerSettings().fakeClock) target.advanceClock = clockAdvancer(target.fetch, location.origin);
  const done = scenario !== undefined && results.length >= scenario.steps.length;

  const reset = () => {
    vars.current = {};
    setResults([]);
    setSetupError(null);
    setStarted(false);
  };

  /**
   * When the tab's server runs with other settings than the scenario's:
   * stores the scenario's and reloads, the run resuming after it. A resumed
   * run never reloads again (a server that could not start answers its 503).
   */
  const switchedServer = (action: 'replay' | 'step', resumed: boolean): boolean => {
    if (resumed || !wanted || pending.length === 0) return false;
    writeServerSettings(wanted);
    saveResume({ draft, action, applied: pending });
    reload();
    return true;
  };

  const setup = async (): Promise<boolean> => {
    if (!scenario) return false;
    const outcome = await applyObjects(scenario, target);
    setStarted(true);
    if (!outcome.ok) setSetupError(outcome.message);
    return outcome.ok;
  };

  const step = async (resumed = false) => {
    if (!scenario || busy) return;
    if (!started && switchedServer('step', resumed)) return;
    setBusy(true);
    try {
      if (!started && !(await setup())) return;
      const index = results.length;
      const next = scenario.steps[index];
      if (next) {
        const result = await runStep(next, index, target, vars.current);
        setResults((r) => [...r, result]);
      }
    } finally {
      setBusy(false);
    }
  };

  const replay = async (resumed = false) => {
    if (!scenario || busy) return;
    if (switchedServer('replay', resumed)) return;
    setBusy(true);
    reset();
    try {
      if (!(await setup())) return;
      const all: StepResult[] = [];
      for (const [i, s] of scenario.steps.entries()) {
        all.push(await runStep(s, i, target, vars.current));
        setResults([...all]);
      }
    } finally {
      setBusy(false);
    }
  };

  // After the reload that switched the server: say what changed and carry on with the run.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current) return;
    resumed.current = true;
    const resume = takeResume();
    if (!resume || resume.draft !== draft) return;
    setApplied(resume.applied);
    void (resume.action === 'replay' ? replay(true) : step(true));
    // Runs once, on the first render after the reload.
  }, []);

  const share = async () => {
    const fragment = await scenarioFragment(draft);
    const url = `${location.origin}${location.pathname}#${fragment}`;
    history.replaceState(null, '', `#${fragment}`);
    setLink(url);
  };

  const save = () => {
    if (!scenario) return;
    const next = { ...savedScenarios(), [scenario.name]: draft };
    localStorage.setItem(SAVED_KEY, JSON.stringify(next));
    setSaved(next);
  };

  const download = () => {
    const url = URL.createObjectURL(new Blob([draft], { type: 'application/yaml' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${(scenario?.name ?? 'scenario').replace(/[^\w.-]+/g, '-')}.yaml`;
    a.click();
    URL.revokeObjectURL(url);
  };

  const passed = results.filter((r) => r.passed).length;
  return (
    <section className="panel scenario-panel" aria-labelledby="scenario-heading" data-testid="scenario-panel">
      <h2 id="scenario-heading">Scenario{scenario ? `: ${scenario.name}` : ''}</h2>
      {LESSONS.length > 0 && (
        <label className="scenario-lessons">
          Lessons{' '}
          <select
            value=""
            onChange={(e) => {
              const lesson = LESSONS.find((l) => l.name === e.target.value);
              if (lesson)
                void lesson.load().then((text) => {
                  setDraft(text);
                  reset();
                });
            }}
            data-testid="scenario-lessons"
          >
            <option value="">open a lesson…</option>
            {LESSONS.map((l) => (
              <option key={l.name} value={l.name}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {scenario?.description && (
        <p className="scenario-description" data-testid="scenario-description">
          {scenario.description}
        </p>
      )}
      <LazyCodeEditor
        value={draft}
        onChange={(text) => {
          setDraft(text);
          reset();
        }}
        language="yaml"
        modelUri="inmemory://kubesim/scenario.yaml"
        ariaLabel="Scenario (YAML)"
        testId="scenario-editor"
        height={260}
      />
      {!parsed.ok && (
        <ul className="problems" data-testid="scenario-problems">
          {parsed.errors.map((e, i) => (
            <li key={i} className="error">
              {e}
            </li>
          ))}
        </ul>
      )}
      {pending.length > 0 && (
        <p className="muted" data-testid="scenario-settings-note">
          Running this scenario sets this tab&apos;s server to its settings: {pending.join('; ')}. Stored objects stay.
        </p>
      )}
      {applied.length > 0 && (
        <p role="status" className="warning" data-testid="scenario-settings-applied">
          This tab&apos;s server now runs with the scenario&apos;s settings: {applied.join('; ')}. The other panels act as the Access panel&apos;s user.
        </p>
      )}
      {scenario?.settings.fakeClock && (
        <p className="muted" data-testid="scenario-clock-note">
          On the fake clock, <code>advanceClock</code> steps move this tab&apos;s server time. When the browser stops the idle service worker, its next start begins again
          from the real time.
        </p>
      )}

      <div className="actions">
        <button type="button" className="primary" onClick={() => void replay()} disabled={!scenario || busy} data-testid="scenario-replay">
          Replay all
        </button>
        <button type="button" onClick={() => void step()} disabled={!scenario || busy || done} data-testid="scenario-step">
          {started ? 'Next step' : 'Start (apply objects, run step 1)'}
        </button>
        <button type="button" onClick={reset} disabled={!started} data-testid="scenario-reset">
          Reset
        </button>
        <button type="button" onClick={save} disabled={!scenario} data-testid="scenario-save">
          Save in this browser
        </button>
        {Object.keys(saved).length > 0 && (
          <label>
            Load{' '}
            <select
              value=""
              onChange={(e) => {
                const text = saved[e.target.value];
                if (text !== undefined) {
                  setDraft(text);
                  reset();
                }
              }}
              data-testid="scenario-load"
            >
              <option value="">saved…</option>
              {Object.keys(saved).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="button" onClick={download} data-testid="scenario-download">
          Download
        </button>
        <label className="file-input">
          Open file{' '}
          <input
            type="file"
            accept=".yaml,.yml,application/yaml,text/yaml"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file)
                void file.text().then((text) => {
                  setDraft(text);
                  reset();
                });
            }}
            data-testid="scenario-file"
          />
        </label>
        <button type="button" onClick={() => void share()} data-testid="scenario-share">
          Share as link
        </button>
      </div>
      {link && <input className="share-link" readOnly value={link} aria-label="Link to this scenario" data-testid="scenario-link" onFocus={(e) => e.target.select()} />}
      {setupError && <StatusError error={new Error(`objects: ${setupError}`)} testId="scenario-setup-error" />}
      {scenario && started && (
        <>
          <p role="status" data-testid="scenario-summary">
            {passed} passed, {results.length - passed} failed, {scenario.steps.length - results.length} to run
          </p>
          <ol className="scenario-results">
            {results.map((r) => (
              <li key={r.index} className={r.passed ? 'success' : 'failed'} data-testid="scenario-result" data-passed={r.passed}>
                {r.passed ? 'PASS' : 'FAIL'} {describeStep(scenario.steps[r.index]!, r.index)}
                {r.status !== undefined && ` -> ${r.status}${r.reason ? ` ${r.reason}` : ''}`}
                {r.failures.length > 0 && (
                  <ul>
                    {r.failures.map((f, i) => (
                      <li key={i}>{f}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
