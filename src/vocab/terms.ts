import { CFC, INF, MES, OWL, PLANT, RDF, RDFS, SH, SM, SVC, XSD } from './namespaces.js';

/** Terms of the Service module (`svc:`) that the spec names. */
export const svc = Object.freeze({
  Service: SVC('Service'),
  Workflow: SVC('Workflow'),
  StateProperty: SVC('StateProperty'),
  address: SVC('address'),
  lastHeartbeat: SVC('lastHeartbeat'),
  isServiceOf: SVC('isServiceOf'),
  hasService: SVC('hasService'),
  isWorkflowOf: SVC('isWorkflowOf'),
  hasWorkflow: SVC('hasWorkflow'),
  isStatePropertyOf: SVC('isStatePropertyOf'),
  hasStateProperty: SVC('hasStateProperty'),
  endpoint: SVC('endpoint'),
  realizedByWorkflow: SVC('realizedByWorkflow'),
  realizesCapability: SVC('realizesCapability'),
  providedByStateProperty: SVC('providedByStateProperty'),
  providesCapability: SVC('providesCapability'),
  precondition: SVC('precondition'),
  outcome: SVC('outcome'),
  operationStatus: SVC('operationStatus'),
  failureState: SVC('failureState'),
  executedByWorkflow: SVC('executedByWorkflow'),
  executionTimestamp: SVC('executionTimestamp'),
  executionResult: SVC('executionResult'),
});

/** Terms of the Core module (`cfc:`) that the product relies on (a subset of Core 0.9.0). */
export const cfc = Object.freeze({
  Resource: CFC('Resource'),
  Workpiece: CFC('Workpiece'),
  Capability: CFC('Capability'),
  Operation: CFC('Operation'),
  PossessionState: CFC('PossessionState'),
  hasCapability: CFC('hasCapability'),
  implementsCapability: CFC('implementsCapability'),
  hasPossessor: CFC('hasPossessor'),
  hasPossessedWorkpiece: CFC('hasPossessedWorkpiece'),
});

/**
 * Terms of the MES module (`mes:`): handover abilities and their complements. The six abilities
 * are the members of the `mes:HandoverAbility` enumeration.
 */
export const mes = Object.freeze({
  HandoverAbility: MES('HandoverAbility'),
  hasHandoverAbility: MES('hasHandoverAbility'),
  complements: MES('complements'),
  Put: MES('Put'),
  Receive: MES('Receive'),
  Pick: MES('Pick'),
  Release: MES('Release'),
  Pass: MES('Pass'),
  Retrieve: MES('Retrieve'),
});

/**
 * Terms of the interface vocabulary (`inf:`) the semantic connectors recognize: the marker
 * properties a domain property descends from, the parameter node's value and access mode, and
 * the MQTT connection metadata (southbound only: never served northbound).
 */
export const inf = Object.freeze({
  isInterfaceAccessibleParameter: INF('isInterfaceAccessibleParameter'),
  isInterfaceAccessibleMQTTParameter: INF('isInterfaceAccessibleMQTTParameter'),
  hasValue: INF('hasValue'),
  accessMode: INF('accessMode'),
  hasMQTTTopic: INF('hasMQTTTopic'),
  hasMQTTSetTopic: INF('hasMQTTSetTopic'),
  hasMQTTBrokerIP: INF('hasMQTTBrokerIP'),
  hasMQTTBrokerPort: INF('hasMQTTBrokerPort'),
  hasMQTTValuePath: INF('hasMQTTValuePath'),
});

/** The few W3C terms the code reads or writes. */
export const w3 = Object.freeze({
  type: RDF('type'),
  langString: RDF('langString'),
  subClassOf: RDFS('subClassOf'),
  subPropertyOf: RDFS('subPropertyOf'),
  domain: RDFS('domain'),
  range: RDFS('range'),
  Class: OWL('Class'),
  Ontology: OWL('Ontology'),
  NamedIndividual: OWL('NamedIndividual'),
  ObjectProperty: OWL('ObjectProperty'),
  DatatypeProperty: OWL('DatatypeProperty'),
  AnnotationProperty: OWL('AnnotationProperty'),
  unionOf: OWL('unionOf'),
  intersectionOf: OWL('intersectionOf'),
  allValuesFrom: OWL('allValuesFrom'),
  oneOf: OWL('oneOf'),
  Restriction: OWL('Restriction'),
  onProperty: OWL('onProperty'),
  cardinality: OWL('cardinality'),
  qualifiedCardinality: OWL('qualifiedCardinality'),
  maxCardinality: OWL('maxCardinality'),
  maxQualifiedCardinality: OWL('maxQualifiedCardinality'),
  minCardinality: OWL('minCardinality'),
  inverseOf: OWL('inverseOf'),
  SymmetricProperty: OWL('SymmetricProperty'),
  first: RDF('first'),
  rest: RDF('rest'),
  nil: RDF('nil'),
  NodeShape: SH('NodeShape'),
});

/** XML Schema datatypes used for literals. */
export const xsd = Object.freeze({
  string: XSD('string'),
  anyURI: XSD('anyURI'),
  dateTime: XSD('dateTime'),
  boolean: XSD('boolean'),
  integer: XSD('integer'),
  decimal: XSD('decimal'),
  double: XSD('double'),
  nonNegativeInteger: XSD('nonNegativeInteger'),
});

/**
 * Datatype of every timestamp the graph contract fixes (`svc:lastHeartbeat`,
 * `svc:executionTimestamp`, a provisioning lease's expiry), written and compared as such: the one
 * place it is named. Its lexical form is written by `dateTimeLiteral`.
 */
export const TIMESTAMP_DATATYPE: string = xsd.dateTime;

/** Terms of this product's own bookkeeping (`https://w3id.org/semantic-middleware#`). */
export const sm = Object.freeze({
  /**
   * `<graph> sm:contentHash "sha256:<hex>"`, written inside a provisioned ontology graph: the
   * hash of the file last loaded into it, so provisioning skips unchanged modules.
   */
  contentHash: SM('contentHash'),
  /**
   * The named graph of provisioning leases: `<module graph> sm:provisioningHolder "<token>" ;
   * sm:provisioningExpires "<dateTime>"` while one process (re)loads that module graph.
   */
  provisioningGraph: SM('provisioning'),
  provisioningHolder: SM('provisioningHolder'),
  provisioningExpires: SM('provisioningExpires'),
  /**
   * The REST connector's marker (`rdfs:subPropertyOf inf:isInterfaceAccessibleParameter`): the
   * parameter is read from a peer middleware's northbound surface. Its node names the peer
   * resource (`sm:hasRESTPeer`) and either the peer's parameter (`sm:hasRESTPeerParameter`, read
   * and set at `/parameters/{name}`) or its state property (`sm:hasRESTPeerState`, read at
   * `/state/{name}`). Southbound only: never served northbound.
   */
  isInterfaceAccessibleRESTParameter: SM('isInterfaceAccessibleRESTParameter'),
  hasRESTPeer: SM('hasRESTPeer'),
  hasRESTPeerParameter: SM('hasRESTPeerParameter'),
  hasRESTPeerState: SM('hasRESTPeerState'),
  /**
   * Workflows invoked over MQTT (`ontology/middleware.ttl`): the marker a domain property
   * descends from, and the workflow node's classes, topics and timeout. Topics are southbound.
   */
  isInterfaceAccessibleMQTTWorkflow: SM('isInterfaceAccessibleMQTTWorkflow'),
  hasMQTTCommandTopic: SM('hasMQTTCommandTopic'),
  hasMQTTResponseTopic: SM('hasMQTTResponseTopic'),
  hasMQTTTimeoutMs: SM('hasMQTTTimeoutMs'),
  /**
   * The OPC UA connector (`ontology/middleware.ttl`): the parameter marker
   * (`rdfs:subPropertyOf inf:isInterfaceAccessibleParameter`) and the workflow marker, the
   * server's endpoint URL, a variable's NodeId, a method's object and method NodeIds, the
   * optional sampling interval, security mode and policy and user name. Southbound only.
   */
  isInterfaceAccessibleOPCUAParameter: SM('isInterfaceAccessibleOPCUAParameter'),
  isInterfaceAccessibleOPCUAWorkflow: SM('isInterfaceAccessibleOPCUAWorkflow'),
  hasOPCUAEndpoint: SM('hasOPCUAEndpoint'),
  hasOPCUANodeId: SM('hasOPCUANodeId'),
  hasOPCUAObjectNodeId: SM('hasOPCUAObjectNodeId'),
  hasOPCUAMethodNodeId: SM('hasOPCUAMethodNodeId'),
  hasOPCUASamplingIntervalMs: SM('hasOPCUASamplingIntervalMs'),
  hasOPCUASecurityMode: SM('hasOPCUASecurityMode'),
  hasOPCUASecurityPolicy: SM('hasOPCUASecurityPolicy'),
  hasOPCUAUserName: SM('hasOPCUAUserName'),
  workflowClass: SM('workflowClass'),
  capabilityClass: SM('capabilityClass'),
  /**
   * `<service> sm:heartbeatInterval "30000"^^xsd:integer`: the Service's own heartbeat period, in
   * milliseconds, written when it becomes reachable. The watchdog and discovery judge the Service
   * by it (see `registration/staleness.ts`); a Service without it is judged by the threshold alone.
   */
  heartbeatInterval: SM('heartbeatInterval'),
  /**
   * `<service> sm:deviceUnavailableSince "<dateTime>"`: present while the Service's device does
   * not answer its health probe; discovery skips such a Service, and removing it offers it again.
   */
  deviceUnavailableSince: SM('deviceUnavailableSince'),
  /** `<op> sm:deadline "<dateTime>"`: the instant after which no receiver starts the Operation (written at creation). */
  deadline: SM('deadline'),
  /** `<op> sm:failureKind "cancelled"`: which kind of failure a failed Operation had (a {@link FailureKind} value). */
  failureKind: SM('failureKind'),
  /** `<op> sm:cancelRequested "<dateTime>"`: a cancel of the running Operation was asked for; its receiver completes it. */
  cancelRequested: SM('cancelRequested'),
  /** `<op> sm:cancelledBy "<caller>"`: who cancelled the Operation (see `src/lib/caller-identity.ts`). */
  cancelledBy: SM('cancelledBy'),
  /** `<op> sm:requestedBy "<caller>"`: who requested the Operation (see `src/lib/caller-identity.ts`); written at creation. */
  requestedBy: SM('requestedBy'),
  /** `<op> sm:createdAt "<dateTime>"`: when the Operation was created (same update as the create). */
  createdAt: SM('createdAt'),
  /** `<op> sm:claimedAt "<dateTime>"`: when a receiver moved it to `running` (same update as the claim). */
  claimedAt: SM('claimedAt'),
  /** `<op> sm:finishedAt "<dateTime>"`: when it reached `done` or `failed` (same update as the terminal status). */
  finishedAt: SM('finishedAt'),
  /** `<state> sm:possessionChangedAt "<dateTime>"`: when the change of possession this PossessionState records happened. */
  possessionChangedAt: SM('possessionChangedAt'),
  /** `<state> sm:possessionChangedBy "<caller>"`: who initiated that change (see `src/lib/caller-identity.ts`). */
  possessionChangedBy: SM('possessionChangedBy'),
});

/**
 * The example plant of `ontology/examples/plant.ttl`. Not part of the interface: the demo and
 * the tests use these classes and individuals.
 */
export const plant = Object.freeze({
  Door: PLANT('Door'),
  Robot: PLANT('Robot'),
  Conveyor: PLANT('Conveyor'),
  Part: PLANT('Part'),
  ControllerService: PLANT('ControllerService'),
  MonitorService: PLANT('MonitorService'),
  DoorOpeningCapability: PLANT('DoorOpeningCapability'),
  DoorClosingCapability: PLANT('DoorClosingCapability'),
  DoorStateCapability: PLANT('DoorStateCapability'),
  PickAndPlaceCapability: PLANT('PickAndPlaceCapability'),
  TransportCapability: PLANT('TransportCapability'),
  PositionCapability: PLANT('PositionCapability'),
  OpenDoorWorkflow: PLANT('OpenDoorWorkflow'),
  CloseDoorWorkflow: PLANT('CloseDoorWorkflow'),
  PickAndPlaceWorkflow: PLANT('PickAndPlaceWorkflow'),
  TransportWorkflow: PLANT('TransportWorkflow'),
  DoorStateProperty: PLANT('DoorStateProperty'),
  PositionStateProperty: PLANT('PositionStateProperty'),
  OpenDoorOperation: PLANT('OpenDoorOperation'),
  CloseDoorOperation: PLANT('CloseDoorOperation'),
  PickAndPlaceOperation: PLANT('PickAndPlaceOperation'),
  TransportOperation: PLANT('TransportOperation'),
  door1: PLANT('door1'),
  robot1: PLANT('robot1'),
  conveyor1: PLANT('conveyor1'),
  conveyor2: PLANT('conveyor2'),
});
