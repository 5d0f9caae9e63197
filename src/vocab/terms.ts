import { CFC, MES, OWL, RDF, RDFS, SH, SVC, XSD } from './namespaces.js';

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
  realizes: SVC('realizes'),
  providedByStateProperty: SVC('providedByStateProperty'),
  provides: SVC('provides'),
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

/** Terms of the MES module (`mes:`): handover abilities and their complements. */
export const mes = Object.freeze({
  HandoverAbility: MES('HandoverAbility'),
  hasHandoverAbility: MES('hasHandoverAbility'),
  complements: MES('complements'),
  PutAbility: MES('PutAbility'),
  ReceiveAbility: MES('ReceiveAbility'),
  PickAbility: MES('PickAbility'),
  ReleaseAbility: MES('ReleaseAbility'),
  PassAbility: MES('PassAbility'),
  RetrieveAbility: MES('RetrieveAbility'),
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
  NamedIndividual: OWL('NamedIndividual'),
  ObjectProperty: OWL('ObjectProperty'),
  DatatypeProperty: OWL('DatatypeProperty'),
  AnnotationProperty: OWL('AnnotationProperty'),
  unionOf: OWL('unionOf'),
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
