/**
 * A scenario run that continues after the page reloads. Switching the tab's
 * server to a scenario's settings installs a new service worker, which only
 * takes over once the old one has no request in flight, and the page's open
 * watches keep it busy; so the page reloads (as the Access panel does) and
 * the run resumes from here. Kept in sessionStorage: this tab only.
 */
const RESUME_KEY = 'kubesim.scenarioResume';

export interface ScenarioResume {
  draft: string;
  action: 'replay' | 'step';
  /** The settings changes, to tell the user after the reload. */
  applied: string[];
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function saveResume(resume: ScenarioResume, storage: Storage = sessionStorage): void {
  storage.setItem(RESUME_KEY, JSON.stringify(resume));
}

export function peekResume(storage: Pick<Storage, 'getItem'> = sessionStorage): ScenarioResume | undefined {
  try {
    const value = JSON.parse(storage.getItem(RESUME_KEY) ?? 'null') as ScenarioResume | null;
    return value && typeof value.draft === 'string' && (value.action === 'replay' || value.action === 'step') && Array.isArray(value.applied) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The pending resume, removed so a second reload does not run it again. */
export function takeResume(storage: Storage = sessionStorage): ScenarioResume | undefined {
  const resume = peekResume(storage);
  storage.removeItem(RESUME_KEY);
  return resume;
}
