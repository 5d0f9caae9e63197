import { buildStateEndpoint, buildWorkflowEndpoint } from '../../iri/endpoints.js';
import { mintCapabilityIri, mintStatePropertyIri, mintWorkflowIri } from '../../iri/mint.js';
import { assertClassRegistered } from '../../registration/classes.js';
import { registerService, registerStateProperty, registerWorkflow } from '../../registration/services.js';
import { cfc, svc } from '../../vocab/terms.js';
import type { MiddlewareContext } from './context.js';

/**
 * The registration steps of a resource-mode start (and of a re-registration after the Service
 * was swept): class checks first, then the Service (unreachable) and each Workflow and
 * StateProperty with the IRIs and endpoints the `iri` module mints.
 */

/**
 * Checks every class given to the constructor, `mw.workflow` and `mw.state` against the
 * ontology before anything is written, so a missing class fails start-up with nothing in the
 * graph.
 * @throws OntologyGroundTruthError naming the class and the kind it must be.
 */
export async function assertRegisteredClasses(ctx: MiddlewareContext): Promise<void> {
  const { ogm, graph, registry } = ctx;
  const checks: [string, string][] = [[ctx.options.serviceClass!, svc.Service]];
  for (const w of registry.workflows.values()) checks.push([w.workflowClass, svc.Workflow], [w.capabilityClass, cfc.Capability]);
  for (const s of registry.states.values()) checks.push([s.statePropertyClass, svc.StateProperty], [s.capabilityClass, cfc.Capability]);
  for (const [cls, base] of checks) await assertClassRegistered(ogm, cls, base, graph);
}

/**
 * Writes the Service (without `svc:address`, so it is not reachable yet) and every Workflow and
 * StateProperty with its Capability. Re-running it on a registered Service rewrites the same
 * triples, which changes nothing but the endpoints a deregistration removed.
 */
export async function registerServiceAndParts(ctx: MiddlewareContext): Promise<void> {
  const { ogm, graph, registry } = ctx;
  const resourceIri = ctx.resource('registration');
  const { serviceIri, address } = ctx.service('registration');
  await registerService(ogm, { resourceIri, serviceIri, serviceClass: ctx.options.serviceClass!, address, reachable: false, ...graph });
  for (const w of registry.workflows.values()) {
    await registerWorkflow(ogm, {
      resourceIri,
      serviceIri,
      workflowIri: mintWorkflowIri(serviceIri, w.name),
      workflowClass: w.workflowClass,
      capabilityIri: mintCapabilityIri(resourceIri, w.name),
      capabilityClass: w.capabilityClass,
      endpoint: buildWorkflowEndpoint(address, w.name),
      ...graph,
    });
  }
  for (const s of registry.states.values()) {
    await registerStateProperty(ogm, {
      resourceIri,
      serviceIri,
      statePropertyIri: mintStatePropertyIri(serviceIri, s.name),
      statePropertyClass: s.statePropertyClass,
      capabilityIri: mintCapabilityIri(resourceIri, s.name),
      capabilityClass: s.capabilityClass,
      endpoint: buildStateEndpoint(address, s.name),
      ...graph,
    });
  }
}
