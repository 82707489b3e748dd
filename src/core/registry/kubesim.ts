/**
 * kubesim's own API group (cel.kubesim.dev): virtual resources for the
 * workbench and scripts, served, discovered and documented like built-ins.
 */
import type { ResourceType, SchemaObject } from './types';

export const evaluationsResource: ResourceType = {
  group: 'cel.kubesim.dev',
  version: 'v1alpha1',
  kind: 'Evaluation',
  resource: 'evaluations',
  singular: 'evaluation',
  scope: 'Cluster',
  verbs: ['create'],
  subresources: [],
  definition: 'dev.kubesim.cel.v1alpha1.Evaluation',
  createOnly: true,
};

/** apiVersion, kind and metadata, the properties every kind's schema starts with. */
const typeAndObjectMeta: Record<string, SchemaObject> = {
  apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
  kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
  metadata: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
};

export const evaluationsDefinitions: Record<string, SchemaObject> = {
  'dev.kubesim.cel.v1alpha1.Evaluation': {
    description: 'Evaluation compiles and runs one CEL expression in one of the API server\'s environments and reports its value, type, error and cost exactly as the API server computes them.',
    type: 'object',
    required: ['spec'],
    properties: {
      ...typeAndObjectMeta,
      spec: { $ref: '#/definitions/dev.kubesim.cel.v1alpha1.EvaluationSpec' },
      status: { $ref: '#/definitions/dev.kubesim.cel.v1alpha1.EvaluationStatus' },
    },
    'x-kubernetes-group-version-kind': [{ group: 'cel.kubesim.dev', version: 'v1alpha1', kind: 'Evaluation' }],
  },
  'dev.kubesim.cel.v1alpha1.EvaluationSpec': {
    description: 'The expression and the environment it runs in.',
    type: 'object',
    required: ['expression'],
    properties: {
      expression: { type: 'string', description: 'The CEL expression.' },
      environment: { type: 'string', enum: ['crd', 'admission', 'authentication', 'authorization', 'plain'], description: 'The API server environment: crd (self, oldSelf), admission (object, oldObject, request, params, namespaceObject, variables, authorizer), authentication (claims, user), authorization (request), or plain. Default plain.' },
      variables: { type: 'object', description: 'JSON values of the environment\'s variables.', 'x-kubernetes-preserve-unknown-fields': true },
      schema: { type: 'object', description: 'OpenAPI schema typing self and oldSelf (crd environment).', 'x-kubernetes-preserve-unknown-fields': true },
      perCallLimit: { type: 'integer', format: 'int64', description: 'Runtime cost limit; the API server\'s per-expression limit by default.' },
      typeSizes: {
        type: 'object',
        description: 'Sizes the cost estimator assumes for strings and bytes it cannot size otherwise ({min, max}), as a size estimator does; Kubernetes\' library cost tests use 0..12.',
        properties: {
          string: { type: 'object', properties: { min: { type: 'integer', format: 'int64' }, max: { type: 'integer', format: 'int64' } } },
          bytes: { type: 'object', properties: { min: { type: 'integer', format: 'int64' }, max: { type: 'integer', format: 'int64' } } },
        },
      },
      optimize: { type: 'boolean', description: 'cel-go\'s OptOptimize: constant literals and conversions are built once and cost nothing at runtime. The API server\'s programs run with it (default true); the plain environment never optimizes.' },
    },
  },
  'dev.kubesim.cel.v1alpha1.EvaluationStatus': {
    description: 'What the API server would know about the expression.',
    type: 'object',
    properties: {
      value: { description: 'The result as JSON (ints beyond 2^53 as decimal strings).', 'x-kubernetes-preserve-unknown-fields': true },
      type: { type: 'string', description: 'CEL type of the result.' },
      error: { type: 'string', description: 'Compile or runtime error, with line:column and a caret snippet.' },
      errorExpression: { type: 'string', description: 'Source of the sub-expression that failed.' },
      cost: { type: 'integer', format: 'int64', description: 'Actual runtime cost in the API server\'s cost units.' },
      estimatedCost: {
        type: 'object',
        description: 'Static cost estimate over the checked expression, using schema bounds.',
        properties: { min: { 'x-kubernetes-int-or-string': true }, max: { 'x-kubernetes-int-or-string': true } },
      },
      costLimits: {
        type: 'array',
        description: 'Each API server cost limit next to the figure it holds: PerCallLimit against the runtime cost, StaticEstimatedCostLimit (crd) against the estimate\'s max.',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            limit: { type: 'integer', format: 'int64' },
            value: { 'x-kubernetes-int-or-string': true },
            exceededBy: { 'x-kubernetes-int-or-string': true, description: 'How far over the limit the figure is; absent when within it.' },
          },
        },
      },
      warnings: { type: 'array', items: { type: 'string' }, description: 'Warnings the API server would give for this rule.' },
    },
  },
};

/** upgrade.kubesim.dev: the removed-API check the workbench and `kubesim check` run on manifests. */
export const removedApiChecksResource: ResourceType = {
  group: 'upgrade.kubesim.dev',
  version: 'v1alpha1',
  kind: 'RemovedAPICheck',
  resource: 'removedapichecks',
  singular: 'removedapicheck',
  scope: 'Cluster',
  verbs: ['create'],
  subresources: [],
  definition: 'dev.kubesim.upgrade.v1alpha1.RemovedAPICheck',
  createOnly: true,
};

const preserve = { 'x-kubernetes-preserve-unknown-fields': true } as const;

export const removedApiChecksDefinitions: Record<string, SchemaObject> = {
  'dev.kubesim.upgrade.v1alpha1.RemovedAPICheck': {
    description: 'RemovedAPICheck reads manifests and reports, per object, whether its apiVersion was removed and in which release, what replaces it, the field changes the removal brings, and the converted object where the conversion is mechanical.',
    type: 'object',
    required: ['spec'],
    properties: {
      ...typeAndObjectMeta,
      spec: {
        description: 'The manifests to check.',
        type: 'object',
        required: ['manifests'],
        properties: {
          manifests: { type: 'string', description: 'YAML (several documents allowed) or JSON; List kinds are expanded.' },
          targetVersion: { type: 'string', description: 'The Kubernetes release to check against, e.g. "1.25"; this server\'s version by default.' },
        },
      },
      status: {
        description: 'One report per object, in input order.',
        type: 'object',
        properties: {
          targetVersion: { type: 'string' },
          objects: { type: 'array', items: { type: 'object', ...preserve } },
          errors: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    'x-kubernetes-group-version-kind': [{ group: 'upgrade.kubesim.dev', version: 'v1alpha1', kind: 'RemovedAPICheck' }],
  },
};
