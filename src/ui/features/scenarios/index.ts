/** Scenarios: the YAML format, the runner shared with the Node host, sharing as a link, and the panel. */
export { ScenarioPanel } from './ScenarioPanel';
export { describeStep, parseDuration, parseScenario, type Scenario, type Step } from './scenario';
export { applyObjects, checkExpectation, runScenario, runStep, subsetFailures, type ScenarioTarget, type ScenarioVariables, type StepResult } from './runner';
export { scenarioFragment, scenarioFromFragment } from './share';
export { EXAMPLE_SCENARIO, createScenarioSlice, type ScenarioSlice } from './scenarioSlice';
