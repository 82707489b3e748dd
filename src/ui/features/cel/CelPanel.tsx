/**
 * The CEL lab: an expression in one of the API server's environments, its
 * variables (and for CRD rules the schema of self) as YAML, and the live
 * answer of POST cel.kubesim.dev/v1alpha1/evaluations: value, type, cost,
 * estimated cost, warnings, and errors marked at their position.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { queryKeys, useApiClient, type KubeObject } from '../../api';
import { StatusError } from '../../common';
import { LazyCodeEditor } from '../../monaco';
import { useWorkbench } from '../../store';
import { CEL_ENVIRONMENTS, type CelEnvironment } from './celSlice';
import { buildEvaluation, describeLimit, errorMarkers, EVALUATIONS_PATH, formatValue, type Evaluation } from './evaluation';
import { CEL_EXAMPLES } from './examples';

const DEBOUNCE_MS = 250;

const ENVIRONMENT_LABELS: Record<CelEnvironment, string> = {
  plain: 'plain (every library)',
  crd: 'CRD validation rule (self, oldSelf)',
  admission: 'admission policy (object, oldObject, request, params, ...)',
  authentication: 'authentication (claims, user)',
  authorization: 'authorization match condition (request)',
};

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function CelPanel() {
  const client = useApiClient();
  const expression = useWorkbench((s) => s.celExpression);
  const environment = useWorkbench((s) => s.celEnvironment);
  const variables = useWorkbench((s) => s.celVariables);
  const schema = useWorkbench((s) => s.celSchema);
  const setCel = useWorkbench((s) => s.setCel);
  const built = useDebounced(buildEvaluation(expression, environment, variables, schema), DEBOUNCE_MS);
  const key = built.ok ? JSON.stringify(built.evaluation.spec) : '';
  const result = useQuery({
    queryKey: [...queryKeys.all, 'cel', key],
    queryFn: async () => (await client.write<KubeObject & Evaluation>('create', EVALUATIONS_PATH, built.ok ? (built.evaluation as unknown as KubeObject) : {})).object,
    enabled: built.ok && expression.trim() !== '',
    placeholderData: keepPreviousData,
    staleTime: Infinity,
    retry: false,
  });
  const status = result.data?.status;
  const markers = errorMarkers(status?.error);

  return (
    <section className="panel cel-panel" aria-labelledby="cel-heading" data-testid="cel-panel">
      <h2 id="cel-heading">CEL lab</h2>
      <div className="write-options">
        <label>
          Environment{' '}
          <select value={environment} onChange={(e) => setCel({ celEnvironment: e.target.value as CelEnvironment })} data-testid="cel-environment">
            {CEL_ENVIRONMENTS.map((env) => (
              <option key={env} value={env}>
                {ENVIRONMENT_LABELS[env]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Example{' '}
          <select
            value=""
            onChange={(e) => {
              const example = CEL_EXAMPLES[Number(e.target.value)];
              if (example) setCel({ celExpression: example.expression, celEnvironment: example.environment, celVariables: example.variables, celSchema: example.schema ?? 'type: object\n' });
            }}
            data-testid="cel-example"
          >
            <option value="">choose a library…</option>
            {CEL_EXAMPLES.map((example, i) => (
              <option key={i} value={i}>
                {example.library}
              </option>
            ))}
          </select>
        </label>
      </div>
      <h3>Expression</h3>
      <LazyCodeEditor
        value={expression}
        onChange={(text) => setCel({ celExpression: text })}
        language="plaintext"
        modelUri="inmemory://kubesim/expression.cel"
        markers={markers}
        ariaLabel="CEL expression"
        testId="cel-expression"
        height={90}
      />
      <div className="cel-inputs">
        <div>
          <h3>Variables (YAML)</h3>
          <LazyCodeEditor
            value={variables}
            onChange={(text) => setCel({ celVariables: text })}
            language="yaml"
            modelUri="inmemory://kubesim/variables.yaml"
            ariaLabel="Variables (YAML)"
            testId="cel-variables"
            height={160}
          />
        </div>
        {environment === 'crd' && (
          <div>
            <h3>Schema of self (YAML)</h3>
            <LazyCodeEditor
              value={schema}
              onChange={(text) => setCel({ celSchema: text })}
              language="yaml"
              modelUri="inmemory://kubesim/schema.yaml"
              ariaLabel="Schema of self (YAML)"
              testId="cel-schema"
              height={160}
            />
          </div>
        )}
      </div>
      <div className="cel-result" aria-live="polite" data-testid="cel-result" data-pending={result.isFetching || !built.ok ? undefined : 'false'}>
        {!built.ok && <StatusError error={new Error(built.message)} testId="cel-input-error" />}
        {result.error && <StatusError error={result.error} testId="cel-request-error" />}
        {status && (
          <dl>
            {status.error === undefined ? (
              <>
                <dt>Value</dt>
                <dd>
                  <pre data-testid="cel-value">{formatValue(status.value)}</pre>
                </dd>
                <dt>Type</dt>
                <dd data-testid="cel-type">{status.type}</dd>
              </>
            ) : (
              <>
                <dt>Error</dt>
                <dd>
                  <pre className="cel-error" role="alert" data-testid="cel-error">
                    {status.error}
                  </pre>
                  {markers.length > 0 && (
                    <ul className="problems" data-testid="cel-markers">
                      {markers.map((m, i) => (
                        <li key={i} className="error" data-testid="cel-marker">
                          {m.line}:{m.column} {m.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </>
            )}
            {status.cost !== undefined && (
              <>
                <dt>Cost</dt>
                <dd data-testid="cel-cost">{status.cost}</dd>
              </>
            )}
            {status.estimatedCost && (
              <>
                <dt>Estimated cost</dt>
                <dd data-testid="cel-estimated">
                  {String(status.estimatedCost.min)}–{String(status.estimatedCost.max)}
                </dd>
              </>
            )}
            {(status.costLimits ?? []).length > 0 && (
              <>
                <dt>Limits</dt>
                <dd>
                  <ul className="cel-limits" data-testid="cel-limits">
                    {status.costLimits!.map((l) => (
                      <li key={l.name} data-testid="cel-limit" data-limit={l.name} data-exceeded={l.exceededBy !== undefined} className={l.exceededBy !== undefined ? 'error' : undefined}>
                        {describeLimit(l)}
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
            {(status.warnings ?? []).length > 0 && (
              <>
                <dt>Warnings</dt>
                <dd>
                  <ul className="warnings">
                    {status.warnings!.map((w, i) => (
                      <li key={i}>{w}</li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
          </dl>
        )}
      </div>
    </section>
  );
}
