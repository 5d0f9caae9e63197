import { TransitionConflictError, ValueError } from '../errors.js';
import { assertIri, isIri, preview } from '../iri/validate.js';
import type { CreateInput, OGM, PropertyInputs, WrittenIndividual } from '../ogm/ogm.js';
import { operationCreatedAtQuery, resourceOperationsQuery, serviceOperationsQuery } from '../queries/operations.js';
import { namedNode } from '../store/terms.js';
import { SVC } from '../vocab/namespaces.js';
import { OperationStatus } from '../vocab/status.js';
import { cfc, sm, svc, w3 } from '../vocab/terms.js';
import { assertCaller } from './cancellation.js';
import { assertClassRegistered, checkOptions, graphOf, type GraphOption } from './classes.js';
import { checkDate } from './services.js';
import { assertStatuses, priorStatuses } from './transitions.js';

export { markOperationFailed, recordTerminalStatus, setOperationStatus } from './operation-status.js';
export { cancelOperation, type CancelOperationOptions, type CancelResult } from './cancellation.js';
export type { MarkOperationFailedOptions, RecordTerminalStatusOptions, SetOperationStatusOptions } from './operation-status.js';

/**
 * The domain fields of an Operation: property -> value(s). A key is a property IRI, or a bare
 * local name (`targetPosition`) that stands for `svc:<name>`, as the spec's "svc:-domain data
 * fields" and the Python reference's data dict keys do. Each property must be declared in the
 * ontology with a domain that admits the Operation's class (checked by the OGM).
 */
export type OperationData = PropertyInputs;

/** Options of {@link createOperation}. */
export interface CreateOperationOptions extends GraphOption {
  operationIri: string;
  /** `cfc:Operation` or a subclass of it, declared in the ontology. */
  operationClass: string;
  /** The Capability the Operation is addressed to (`cfc:implementsCapability`). */
  capabilityIri: string;
  /** Initial status: `queued` (default) or `running`; never a terminal one. */
  status?: OperationStatus;
  data?: OperationData | null;
  /** `sm:deadline`: no receiver starts the Operation after this instant; none when omitted. */
  deadline?: Date | null;
  /** `sm:requestedBy`: who requests it (see `src/lib/caller-identity.ts`); not written when omitted. */
  requestedBy?: string | null;
  /** `sm:createdAt`: when it was created; default now. */
  createdAt?: Date | null;
}

/** Options of {@link revertOperation}: the same values the Operation was created with. */
export interface RevertOperationOptions extends GraphOption {
  operationIri: string;
  operationClass: string;
  capabilityIri: string;
  data?: OperationData | null;
  /** The status it was created with; `queued` (default) for a just-created Operation. */
  status?: OperationStatus;
  /** The deadline it was created with. */
  deadline?: Date | null;
  /** The requester it was created with. */
  requestedBy?: string | null;
  /** The creation time it was created with; default: the one the graph holds (one more read). */
  createdAt?: Date | null;
}

// Properties with their own parameter or written only by the status transitions; a data field
// may not set them, so an Operation never starts with provenance or a second status.
export const RESERVED_OPERATION_PROPERTIES: ReadonlySet<string> = new Set([
  w3.type,
  cfc.implementsCapability,
  svc.operationStatus,
  svc.executedByWorkflow,
  svc.executionTimestamp,
  svc.executionResult,
  svc.failureState,
  sm.deadline,
  sm.failureKind,
  sm.cancelRequested,
  sm.cancelledBy,
  sm.requestedBy,
  sm.createdAt,
  sm.claimedAt,
  sm.finishedAt,
]);
const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/u;

/** Data keys as property IRIs; bare names become `svc:<name>`. */
function dataProperties(data: OperationData): Record<string, OperationData[string]> {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ValueError(`data must be an object of property -> value, got ${preview(data)}`);
  const out: Record<string, OperationData[string]> = {};
  for (const [key, value] of Object.entries(data)) {
    const property = isIri(key) ? key : BARE_NAME.test(key) ? SVC(key) : undefined;
    if (property === undefined)
      throw new ValueError(`data key ${preview(key)} is neither a property IRI nor a bare name (letters, digits, _ and -)`);
    if (RESERVED_OPERATION_PROPERTIES.has(property))
      throw new ValueError(
        `data key ${preview(key)} names <${property}>, which createOperation writes itself or only a status transition writes`,
      );
    if (Object.hasOwn(out, property)) throw new ValueError(`data names <${property}> twice (as ${preview(key)} and another key)`);
    out[property] = value;
  }
  return out;
}

/**
 * The one create both createOperation and revertOperation compute, so revert removes exactly it;
 * `createdAt` is the creation time written (or to delete), none for an Operation without one.
 */
async function operationCreateInput(
  ogm: OGM,
  options: CreateOperationOptions,
  // Asked only once the options are checked: a malformed call reads and writes nothing.
  fallbackCreatedAt: () => Date | undefined | Promise<Date | undefined>,
): Promise<CreateInput> {
  checkOptions(options, 'createOperation / revertOperation');
  const iri = assertIri(options.operationIri, 'operationIri');
  const capability = assertIri(options.capabilityIri, 'capabilityIri');
  const createdAt = options.createdAt ?? (await fallbackCreatedAt());
  const status = options.status ?? OperationStatus.QUEUED;
  priorStatuses('createOperation', status);
  // Filled in place: a literal that starts with a spread costs V8 11 about 0.5 µs per key after it.
  const properties: Record<string, PropertyInputs[string]> = dataProperties(options.data ?? {});
  if (options.deadline != null) properties[sm.deadline] = checkDate(options.deadline, 'deadline');
  if (options.requestedBy != null) properties[sm.requestedBy] = assertCaller(options.requestedBy, 'requestedBy');
  if (createdAt !== undefined) properties[sm.createdAt] = checkDate(createdAt, 'createdAt');
  properties[cfc.implementsCapability] = capability;
  properties[svc.operationStatus] = status;
  const graph = graphOf(ogm, options);
  await assertClassRegistered(ogm, options.operationClass, cfc.Operation, options);
  return { iri, type: options.operationClass, properties, graph };
}

/**
 * Creates an Operation in one OGM create (one `INSERT DATA`, one request once the OGM's TBox is
 * cached): its class, `cfc:implementsCapability`, `svc:operationStatus`, the data fields,
 * its `sm:createdAt`, and, when given, its `sm:deadline` and `sm:requestedBy`.
 * The Capability is not read: dispatch resolved it just before.
 * @param options.status `queued` (default) or `running`.
 * @param options.data domain fields; see {@link OperationData}. Status, capability, type, the
 *   provenance properties and this project's own Operation terms (`sm:`) are refused as data keys.
 * @param options.deadline the instant after which no receiver starts it (a past one is written
 *   as given: the Operation is then failed when claimed, never run).
 * @param options.requestedBy who requests it (`sm:requestedBy`), a caller identity as `assertCaller` checks it.
 * @param options.createdAt `sm:createdAt`; default now.
 * @throws OntologyGroundTruthError if `operationClass` is missing or not `cfc:Operation` or a subclass.
 * @throws ValueError for a malformed IRI or data key, a status other than `queued`/`running`, or a deadline that is not a valid Date.
 * @throws ValidationError (nothing written) for an undeclared data property or one whose domain
 *   does not admit the class, or a value of the wrong kind.
 * @returns what it wrote (its classes and property values as terms): a requester sends it with the event trigger.
 * @example await createOperation(ogm, { operationIri: mintOperationIri(cls), operationClass: cls, capabilityIri, data: { [PLANT('angle')]: 90 } })
 */
export async function createOperation(ogm: OGM, options: CreateOperationOptions): Promise<WrittenIndividual> {
  return ogm.create(await operationCreateInput(ogm, options, () => new Date()));
}

/**
 * Removes exactly what {@link createOperation} wrote for the same options (the types, including
 * `owl:NamedIndividual`, which the reference leaves behind, the capability link, the status and
 * the data fields) in one request through the low-level triple deletion (`ogm.db.tripleDeleteIf`),
 * and makes the OGM forget the individual. Meant for a just-created `queued` Operation whose
 * event trigger failed, and applied only while it still holds the status it was created with:
 * a receiver that took the Operation although its answer never reached the caller (a timeout, a
 * dropped connection) keeps it whole, instead of being left with a status and provenance on an
 * Operation that has no type or Capability any more.
 * Without `createdAt` the creation time the graph holds is read first (one more request).
 * @throws the same errors as createOperation for the same input.
 * @throws TransitionConflictError (nothing removed) when the Operation no longer holds that status.
 * @example await revertOperation(ogm, { operationIri, operationClass, capabilityIri, data })
 */
export async function revertOperation(ogm: OGM, options: RevertOperationOptions): Promise<void> {
  const input = await operationCreateInput(ogm, options, () => createdAtOf(ogm, options));
  const { graph, triples } = await ogm.createTriples(input);
  const status = triples.find((t) => t.predicate === svc.operationStatus)!;
  if (!(await ogm.db.tripleDeleteIf(triples, status, graph))) {
    throw new TransitionConflictError(
      `Operation <${input.iri}> was not reverted: it is no longer '${status.object.value}' (its receiver took it already) or does not exist`,
    );
  }
  ogm.forget(input.iri, graph);
}

/** The `sm:createdAt` the graph holds for the Operation, if any. */
async function createdAtOf(ogm: OGM, options: RevertOperationOptions): Promise<Date | undefined> {
  const rows = await ogm.db.select(operationCreatedAtQuery(graphOf(ogm, options), assertIri(options.operationIri, 'operationIri')));
  const value = rows[0]?.ca?.value;
  return value === undefined ? undefined : new Date(value);
}

/**
 * IRIs of the resource's Operations whose status is one of `statuses`, in one query that
 * traverses `<resource> cfc:hasCapability ?cap . ?op cfc:implementsCapability ?cap`, never IRI
 * names, so it works at start-up before the resource's Services are registered again. Order is
 * unspecified. An empty `statuses` returns `[]` without a request.
 * @throws ValueError for a malformed IRI or an unknown status.
 * @example await findResourceOperations(ogm, PLANT('door1'), ['queued', 'running'])
 */
export async function findResourceOperations(
  ogm: OGM,
  resourceIri: string,
  statuses: readonly OperationStatus[],
  options: GraphOption = {},
): Promise<string[]> {
  const resource = namedNode(assertIri(resourceIri, 'resourceIri'));
  const wanted = assertStatuses(statuses);
  if (wanted.length === 0) return [];
  return operationsWhere(ogm, resourceOperationsQuery(graphOf(ogm, options), resource, wanted));
}

/**
 * IRIs of the Operations this Service may run whose status is one of `statuses`: those whose
 * Capability the Service realizes (`?cap svc:realizedByWorkflow ?w . ?w svc:isWorkflowOf
 * <service>`). This is the per-Operation rule for queue reconstruction: a resource's monitor
 * Service, which realizes no Workflow, never picks up its controller's Operations. One query;
 * works after deregistration (no `svc:address` needed). An empty `statuses` returns `[]`.
 * @throws ValueError for a malformed IRI or an unknown status.
 * @example await findServiceOperations(ogm, serviceIri, ['queued'])
 */
export async function findServiceOperations(
  ogm: OGM,
  serviceIri: string,
  statuses: readonly OperationStatus[],
  options: GraphOption = {},
): Promise<string[]> {
  const service = namedNode(assertIri(serviceIri, 'serviceIri'));
  const wanted = assertStatuses(statuses);
  if (wanted.length === 0) return [];
  return operationsWhere(ogm, serviceOperationsQuery(graphOf(ogm, options), service, wanted));
}

async function operationsWhere(ogm: OGM, query: string): Promise<string[]> {
  const rows = await ogm.db.select(query);
  return rows.map((r) => r.op?.value).filter((v): v is string => v !== undefined);
}
