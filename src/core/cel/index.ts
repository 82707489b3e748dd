// kubesim's CEL engine: parser (parser/), type checker and cost estimator
// (checker/), planner and evaluator with runtime cost tracking
// (interpreter/), the standard, cel-go extension and Kubernetes libraries
// (library/), OpenAPI schema typing (schema/), the API server's environments
// and the evaluations virtual resource. Code outside this folder imports
// only from here.

export {
  CelEnv,
  CelProgram,
  COST_LIMIT_MESSAGE,
  DEFAULT_COMPILE_CACHE_SIZE,
  type CelEvalError,
  type CelResult,
  type CompileOptions,
  type CompileResult,
  type EnvOptions,
  type EvalOptions,
} from './env';
export {
  ADMISSION_REQUEST_TYPE,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  SUBJECT_ACCESS_REVIEW_SPEC_TYPE,
  compileKubernetes,
  kubernetesLibraries,
  newEnvironment,
  type EnvironmentKind,
  type EnvironmentOptions,
} from './environments';
export { evaluateCel, toJson, type EvaluationDeps, type EvaluationSpec, type EvaluationStatus } from './evaluations';
export { estimateCost, type CostEstimate } from './checker/cost';
export { T, typeToString, type CelType } from './common/types';
export { CelMap, CelOptional, fromJson, type CelValue } from './common/values';
export { generateSelfTypeName, schemaToType, schemaValue, withTypeAndObjectMeta, type CelSchema } from './schema/types';
export {
  costErrorMessage,
  estimateCrdCost,
  goValidationRule,
  maxCardinality,
  minSerializedSize,
  type CrdCostReport,
  type ExpressionCost,
  type ValidationRule,
} from './schema/crdCost';
export { escapePropertyName, unescapePropertyName } from './schema/escaping';
export { subjectAccessReviewRequest, type SubjectAccessReviewSpec } from './library/k8s/sarRequest';
export { AuthorizerValue, requestResourceCheck, type AuthorizationAttributes, type AuthorizationDecision, type CelAuthorizer } from './library/k8s/authz';
