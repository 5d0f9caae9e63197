import { RuntimeError, ValueError } from '../../errors.js';
import { EVENT_TRIGGER_WORKFLOW_NAME } from '../../iri/endpoints.js';
import { assertName, mintWorkflowIri } from '../../iri/mint.js';
import { assertIri, preview } from '../../iri/validate.js';
import type { StateGetter, WorkflowHandler } from '../surface/contract.js';

/**
 * The workflows and state properties given to `mw.workflow` / `mw.state`, held in memory until
 * `start()` registers them in the graph. Names are checked here, synchronously; the classes are
 * checked against the ontology at `start()`, before anything is written.
 */

/** Options of `mw.workflow`. */
export interface WorkflowOptions {
  /** `cfc:Capability` or a subclass: the Capability the Workflow realizes. */
  capabilityClass: string;
  /** `svc:Workflow` or a subclass: the Workflow's class. */
  workflowClass: string;
  /** Route and IRI segment (`POST /workflows/{name}/execute`); default the handler's function name. */
  name?: string;
}

/** Options of `mw.state`. */
export interface StateOptions {
  /** `cfc:Capability` or a subclass: the Capability the StateProperty provides. */
  capabilityClass: string;
  /** `svc:StateProperty` or a subclass: the StateProperty's class. */
  statePropertyClass: string;
  /** Route and IRI segment (`GET /state/{name}`); default the getter's function name. */
  name?: string;
}

/** A registered workflow. */
export interface WorkflowEntry {
  readonly name: string;
  readonly capabilityClass: string;
  readonly workflowClass: string;
  readonly handler: WorkflowHandler;
}

/** A registered state property. */
export interface StateEntry {
  readonly name: string;
  readonly capabilityClass: string;
  readonly statePropertyClass: string;
  readonly getter: StateGetter;
}

function classOption(options: object, key: string, what: string): string {
  const value = (options as Record<string, unknown>)[key];
  if (value == null) throw new ValueError(`${what} needs the option ${key} (an IRI of a class in the ontology), got none`);
  return assertIri(value, `${what} ${key}`);
}

/** The workflows and state properties of one middleware instance. */
export class Registry {
  readonly workflows = new Map<string, WorkflowEntry>();
  readonly states = new Map<string, StateEntry>();

  /**
   * Adds a workflow. Capability IRIs are minted per resource from the name, so a name is unique
   * across workflows and state properties together.
   * @throws ValueError for a missing or non-IRI class, a missing, invalid, reserved or duplicate name.
   */
  addWorkflow(options: WorkflowOptions, handler: WorkflowHandler): WorkflowEntry {
    if (typeof options !== 'object' || options === null)
      throw new ValueError(`workflow options must be an object, got ${preview(options)}`);
    if (typeof handler !== 'function') throw new ValueError(`workflow handler must be a function, got ${typeof handler}`);
    const capabilityClass = classOption(options, 'capabilityClass', 'workflow');
    const workflowClass = classOption(options, 'workflowClass', 'workflow');
    const name = this.checkName(options.name, handler, 'workflow');
    const entry = Object.freeze({ name, capabilityClass, workflowClass, handler });
    this.workflows.set(name, entry);
    return entry;
  }

  /**
   * Adds a state property; same rules as {@link addWorkflow}.
   * @throws ValueError for a missing or non-IRI class, a missing, invalid, reserved or duplicate name.
   */
  addState(options: StateOptions, getter: StateGetter): StateEntry {
    if (typeof options !== 'object' || options === null) throw new ValueError(`state options must be an object, got ${preview(options)}`);
    if (typeof getter !== 'function') throw new ValueError(`state getter must be a function, got ${typeof getter}`);
    const capabilityClass = classOption(options, 'capabilityClass', 'state');
    const statePropertyClass = classOption(options, 'statePropertyClass', 'state');
    const name = this.checkName(options.name, getter, 'state');
    const entry = Object.freeze({ name, capabilityClass, statePropertyClass, getter });
    this.states.set(name, entry);
    return entry;
  }

  /** The registered workflow whose IRI under `serviceIri` is `workflowIri`, if any. */
  workflowByIri(serviceIri: string, workflowIri: string): WorkflowEntry | undefined {
    for (const entry of this.workflows.values()) if (mintWorkflowIri(serviceIri, entry.name) === workflowIri) return entry;
    return undefined;
  }

  private checkName(given: unknown, fn: { name: string }, what: string): string {
    const name = given ?? (fn.name === '' ? undefined : fn.name);
    if (name === undefined) throw new ValueError(`${what} needs a name: pass { name } or give the function a name`);
    assertName(name, `${what} name`);
    if (name === EVENT_TRIGGER_WORKFLOW_NAME)
      throw new ValueError(`${what} name '${EVENT_TRIGGER_WORKFLOW_NAME}' is reserved for the event trigger`);
    if (this.workflows.has(name as string) || this.states.has(name as string)) {
      throw new ValueError(
        `${what} name ${preview(name)} is already registered (workflow and state names share one namespace: they mint the Capability IRI)`,
      );
    }
    return name as string;
  }
}

/** Throws RuntimeError unless registrations are still accepted. */
export function assertRegistrationOpen(mode: string, phase: string, what: string): void {
  if (mode !== 'resource') throw new RuntimeError(`${what} is only available in resource mode (this instance is in ${mode} mode)`);
  if (phase !== 'new') throw new RuntimeError(`${what} must be called before start(): this instance is ${phase}`);
}
