import type { StateCreator } from 'zustand';
import type { WorkbenchState } from '../../store';

export const EXAMPLE_SCENARIO = `name: a conflicting apply
settings:
  authorizationMode: AlwaysAllow
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata: { name: scenario-app, namespace: default }
    data: { mode: a }
steps:
  - name: another manager applies a different value
    request: PATCH /api/v1/namespaces/default/configmaps/scenario-app?fieldManager=bob
    contentType: application/apply-patch+yaml
    body: { apiVersion: v1, kind: ConfigMap, metadata: { name: scenario-app }, data: { mode: b } }
    expect:
      status: 409
      reason: Conflict
  - name: the live value is unchanged
    request: GET /api/v1/namespaces/default/configmaps/scenario-app
    expect: { status: 200, body: { data: { mode: a } } }
`;

export interface ScenarioSlice {
  scenarioDraft: string;
  setScenarioDraft(text: string): void;
}

export const createScenarioSlice: StateCreator<WorkbenchState, [], [], ScenarioSlice> = (set) => ({
  scenarioDraft: EXAMPLE_SCENARIO,
  setScenarioDraft: (scenarioDraft) => set({ scenarioDraft }),
});
