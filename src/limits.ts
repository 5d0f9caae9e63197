/**
 * Every size and time limit of the product, in one place, with the reason for its value.
 */
export const LIMITS = Object.freeze({
  /** Longest IRI accepted anywhere. Generous for minted IRIs, small enough to stop abuse. */
  maxIriLength: 2048,
  /**
   * IRIs remembered as valid, so a repeated check is a lookup (at most this many, ~2048 chars
   * each: bounded memory even for hostile input; a sidecar's working set is a few hundred).
   */
  validIriCacheSize: 4096,
  /**
   * Update reports a remote store's client remembers having read, and the longest it keeps (see
   * `virtuoso-report.ts`): a store repeats a few short texts, one per graph and outcome.
   */
  updateReportCacheEntries: 64,
  updateReportCacheChars: 1_024,
  /**
   * Longest SPARQL text whose tokens the store server's lexer keeps for the next reading of the
   * same text (an update is planned, then its compare-and-set witness placed); this project's
   * updates are 1-4 KB, a bulk one may be megabytes and is lexed again instead of kept.
   */
  scanMemoMaxChars: 65_536,
  /** Longest workflow or state-property name; names become IRI segments and URL path segments. */
  maxNameLength: 128,
  /** Longest literal value written to the graph (an Operation data field, a result, a snapshot). */
  maxLiteralLength: 1_048_576,
  /** Largest SPARQL request the embedded store journals as one entry. */
  maxJournalEntryBytes: 16 * 1_048_576,
  /**
   * Journal size at which the embedded store writes a snapshot and starts a new journal. Replay
   * at start costs about as much as the writes did, so this bounds start-up time (~64 MiB of
   * small updates replays in seconds) while keeping snapshots (a full N-Quads dump) rare.
   */
  journalCompactBytes: 64 * 1_048_576,
  /**
   * External memory (V8's count; Oxigraph's WebAssembly memory is most of it) from which the
   * embedded store keeps free space ahead of its growth (see `wasm-headroom.ts`). An idle
   * sidecar's store stays below it (its external memory is about 5 MB), so nothing is reserved
   * there; `store serve` passes it within its first few thousand Operations.
   */
  wasmHeadroomFromBytes: 16 * 1_048_576,
  /**
   * Largest block reserved at once (a quarter of the memory otherwise): reserving it takes
   * about 12 ms, once per such step of growth (some 4,000 dispatched Operations).
   */
  wasmHeadroomMaxBytes: 16 * 1_048_576,
  /**
   * Compare-and-sets one witness quad of the embedded store serves before it is replaced:
   * Oxigraph's in-memory store keeps every version of a triple, and looking the witness up
   * walks its versions (1 µs more per 1,000 updates). Each replaced witness leaves one deleted
   * triple with its versions behind, about 4 KB.
   */
  witnessUses: 256,
  /**
   * Triples per `INSERT DATA` request when loading a document into a remote store: ~200-400 kB
   * of SPARQL text, and few enough requests that a 100k-triple load is 50 round trips. Virtuoso
   * 7.2's SPARQL compiler fails with "memory exhausted" near 5,000 triples in one request
   * (measured here); 2,000 took ~35 ms a request.
   */
  remoteLoadChunkTriples: 2_000,
  /** Rows per page when dumping a remote store (SELECT ... ORDER BY ... LIMIT/OFFSET). */
  remoteDumpPageRows: 10_000,
  /**
   * Default time a remote store gets to answer one request, body included. Long enough for a
   * loaded store's slowest routine query, short enough that a dead store is noticed by loops.
   */
  remoteRequestTimeoutMs: 30_000,
  /**
   * Requests one process has in flight to a remote store at once; more wait their turn. Below
   * the connection limits of small store set-ups (Virtuoso's default allows 10 clients).
   */
  remoteMaxConcurrentRequests: 8,
  /**
   * Largest answer body read from a remote store; a longer one fails the request instead of
   * filling memory (a misbehaving store, or a URL that serves something else). The largest routine
   * answer is a dump page: {@link remoteDumpPageRows} rows of SPARQL JSON, 3.1 MB for registration
   * triples (measured against `store serve`). A page may also hold long literals (an Operation's
   * result, up to {@link maxLiteralLength}): 64 MiB is twenty such pages, or some sixty literals of
   * the largest size, while reading and parsing it (a few times its size in heap) still fits a
   * gateway's memory.
   */
  remoteAnswerMaxBytes: 64 * 1_048_576,
  /** Times a remote request rolled back as a deadlock victim is sent before the error is raised. */
  storeDeadlockRetries: 8,
  /**
   * Longest wait before the first resend of a deadlock victim; each further wait may be twice as
   * long, up to {@link storeDeadlockBackoffMaxMs}, and is drawn at random below that (so two
   * victims of one deadlock do not collide again). Immediate resends lost five times in a row to a
   * long transaction of another writer; these wait out one of some 2 s at most in all.
   */
  storeDeadlockBackoffMs: 20,
  storeDeadlockBackoffMaxMs: 1_000,
  /**
   * Life of the lease a process holds while it (re)loads an ontology module graph; renewed at a
   * third of it. Short, so that a loader that died mid-load holds the others up only this long.
   */
  provisioningLeaseMs: 30_000,
  /** Longest wait for another process's ontology load before provisioning gives up. */
  provisioningWaitMs: 300_000,
  /**
   * Time an idle kept-alive HTTP connection (to a store, a device, a receiver, a peer) stays open,
   * unless the server announces a shorter keep-alive timeout (Node's agent then closes it a second
   * before that): below the 5 s after which Node and Python servers close theirs, so a request is
   * rarely written to a connection the server is just closing.
   */
  keepAliveIdleMs: 4_000,
  /** Characters of an error response's body quoted in a StoreError. */
  storeErrorBodyPreview: 300,
  /** Largest HTTP request body accepted (workflow arguments, trigger, local API): 1 MiB. */
  httpBodyLimitBytes: 1_048_576,
  /** Time a caller gives the receiver's event trigger to answer before the Operation is reverted. */
  triggerTimeoutMs: 5_000,
  /** How long a caller waits for an outcome channel to end after its outcome line, to reuse the connection. */
  outcomeDrainMs: 1_000,
  /**
   * Time a restarting instance gives a twin's `/healthz` before taking the twin for dead (and its
   * running Operations for orphans). A live sidecar answers in milliseconds.
   */
  twinProbeTimeoutMs: 1_000,
  /** Time stop() gives in-flight work to finish before failing it with a reason. */
  shutdownGraceMs: 10_000,
  /**
   * The per-Service staleness rule: a Service that records its heartbeat interval
   * (`sm:heartbeatInterval`) is stale once its last heartbeat is older than this many intervals,
   * or the configured threshold when that is longer. Three, as the spec's defaults (30 s
   * heartbeat, 90 s threshold): two heartbeats may be lost before a live Service is swept.
   */
  heartbeatsBeforeStale: 3,
  /**
   * Largest `sm:heartbeatInterval` honoured, in ms (one hour): a larger or hostile value is taken
   * as this, so no value in the graph can keep a dead Service offered for longer than three hours.
   */
  maxHonoredHeartbeatIntervalMs: 3_600_000,
  /**
   * Stale Services per batch of the watchdog's sweep: each batch is one failing and one
   * deregistering update, each with a `VALUES` block naming the batch's Services. Virtuoso 7 compiles the block
   * into SQL and refuses it past a few thousand ("generated SQL text has exceeded 10000 lines" at
   * 10,200 Services; 5,000 outran the 30 s request timeout). Measured here, 10,200 stale among
   * 10,200: batches of 500 took 0.5-0.7 s + 1.1-1.4 s (the whole sweep ~40 s, as with 250 or
   * 1,000), 2,000 took 2.4 s + 6-7 s.
   */
  sweepBatchServices: 500,
  /** First and longest wait of a background loop (heartbeat, sweep) retrying after a store error. */
  loopBackoffInitialMs: 500,
  loopBackoffMaxMs: 30_000,
  /** Default time a device gets to answer a proxied workflow or state call. */
  deviceTimeoutMs: 10_000,
  /**
   * How long a probe of the device's health waits before saying it does not answer (at start,
   * where it warns at once, and on every interval after).
   */
  deviceProbeAtStartMs: 2_000,
  /** Default interval of the sidecar's device health probe (setting `device.healthIntervalMs`). */
  deviceHealthIntervalMs: 5_000,
  /**
   * Failed probes in a row, after start, before the device counts as down: one slow answer on a
   * loaded gateway must not withdraw the Service's Capabilities. At start one failure decides.
   */
  deviceHealthFailuresToDown: 2,
  /** Longest long-poll of an Operation's status on the local API. */
  longPollMaxMs: 30_000,
  /** Interval at which waiting for an Operation's terminal status re-reads the graph. */
  operationPollMs: 50,
  /**
   * Outcomes announced over event-trigger channels that a requester keeps for its waiters (and
   * channels it keeps open): past it the oldest is dropped and its waiter reads the store.
   */
  maxAwaitedOutcomes: 1_024,
  /** Largest concurrency a callback may ask for (`registerCallback`'s `concurrency`). */
  maxCallbackConcurrency: 256,
  /**
   * Longest a busy receiver's event trigger waits for the claim of the Operation it carries,
   * which then tells whether the receiver takes it, instead of reading the Operation first (one
   * store request more). It waits only when the runners' recent pace says the claim comes within
   * this time, and reads after twice this time all the same; so with slow work, or a long queue,
   * the trigger reads at once and answers as before.
   */
  triggerClaimWaitMs: 25,
  /**
   * How long a caller reuses what discovery found for a Capability class (setting
   * `discoveryCacheMs`): one store read less on every request's critical path while it holds.
   * Short beside the heartbeat (30 s) and the staleness threshold (90 s), so a fresher receiver
   * is taken up within a second; a remembered receiver that declines the Operation (refuses the
   * connection, or answers 503: stopping, device down) is forgotten and discovery asked again at
   * once, so it costs no failed request that a fresh discovery would have spared.
   */
  discoveryCacheMs: 1_000,
  /**
   * How far a sidecar's old generation may grow past what V8's last full collection kept, in
   * percent: V8's own factor reaches 4x for a small heap that allocates fast, and under sustained
   * dispatch a sidecar then held 95-115 MB of RSS for tens of seconds before shrinking back to
   * 79 MB. At 1.5x it stayed within 83 MB. What it costs in CPU was within the bench's noise: in
   * one set of alternated runs nothing, in another up to 0.1 ms more per dispatched Operation
   * (caller and receiver) and less per proxied call. Set by `start`, see daemon-v8-flags.ts.
   */
  heapGrowingPercent: 50,
  /**
   * How much a WebAssembly function of a sidecar runs before V8 compiles it again with its
   * optimizing compiler: 100 times V8's own (1,800,000). With V8's, a sidecar's start-up work on
   * its embedded store had Oxigraph's functions recompiled and the compiler's memory stayed
   * resident: door1 idled at 83-84 MB with the unit's MALLOC_TRIM_THRESHOLD_ (92 MB without), at
   * 77 MB with this budget. Under sustained dispatch the hot functions are recompiled all the
   * same within the first seconds: an in-process dispatch load ran as fast either way. Set by
   * `start`, see daemon-v8-flags.ts.
   */
  wasmTieringBudget: 180_000_000,
  /** Capability classes (and pinned resources) whose discovery a caller remembers at once; past it the oldest goes. */
  discoveryCacheEntries: 256,
  /**
   * Individuals whose classes one OGM remembers, so that a commit validates without reading
   * them. Above a sidecar's working set (its own Service, Workflows, StateProperties and
   * Capabilities, and the Operations in flight, at most {@link maxCallbackConcurrency} running);
   * each entry holds about 450 bytes, and every Operation adds one that is never needed after its
   * terminal write, so at 50,000 a busy sidecar grew by about 22 MB before the oldest went. A miss
   * costs one read, never a wrong answer.
   */
  ogmTypeCacheEntries: 4_096,
  /**
   * Interval at which a receiver reads whether a cancel of its running Operations was requested
   * (one small query, and only while something runs): how long a cancelled device call may go on.
   */
  cancelWatchMs: 250,
  /**
   * Largest reply accepted from the co-located device (a workflow's result, a state value): a
   * result is stored as one literal, so this matches LIMITS.maxLiteralLength.
   */
  deviceReplyMaxBytes: 1_048_576,
  /** Characters of a device's error body quoted in a DeviceAnswerError or DeviceReplyError. */
  deviceErrorBodyPreview: 300,
  /** Interval of the comment lines that keep an idle activity stream (SSE) open through proxies. */
  activityStreamHeartbeatMs: 15_000,
  /**
   * Bytes an activity stream may have queued for a slow client before it is ended; the client
   * resumes with Last-Event-ID and learns what it missed from the `dropped` event.
   */
  activityStreamMaxBufferedBytes: 1_048_576,
  /** Time each state getter gets when a failed claim snapshots the resource into svc:failureState. */
  failureSnapshotTimeoutMs: 2_000,
  /** Property values of the resource read into a failure snapshot; bounds the snapshot's size. */
  failureSnapshotMaxValues: 500,
  /** Shortest bearer token accepted from a token file (the loopback local API): guessing stays hopeless. */
  minTokenLength: 16,
  /**
   * Time a handover begun on the local API may stay open before it is aborted: long enough for a
   * physical transfer, short enough that a crashed bridge does not hold a workpiece forever.
   */
  localHandoverTtlMs: 300_000,
  /**
   * Largest payload a connector accepts for one parameter value: a scalar in a JSON envelope is
   * small; anything bigger is a misbehaving device and is refused, never parsed.
   */
  connectorPayloadMaxBytes: 65_536,
  /** Time a setpoint write waits for the broker's acknowledgement before it answers 503. */
  connectorWriteTimeoutMs: 5_000,
  /** First delay before a connector reconnects to a lost transport; doubled per failure, with jitter. */
  connectorReconnectMinMs: 100,
  /** Longest delay between a connector's reconnect attempts. */
  connectorReconnectMaxMs: 10_000,
  /**
   * Interval at which an OPC UA connection reads the server's state to learn that its session is
   * gone: a server that closes a session does not tell a client whose publish requests are pending.
   */
  connectorKeepAliveMs: 2_000,
  /**
   * Interval at which the REST connector asks a peer middleware for its values: a value it serves
   * is at most this much older than the peer's own copy, and a peer polls as cheaply as a GET.
   */
  connectorPollIntervalMs: 1_000,
  /**
   * Time one read of a peer middleware gets, reply included: a live peer answers from memory in
   * milliseconds; a hung one must not hold the next poll up for long.
   */
  connectorPollTimeoutMs: 2_000,
  /**
   * Longest a peer's address is used before its Service is looked up again in the graph (sooner
   * after any failed call), so a peer that moved or stopped heartbeating is followed.
   */
  connectorPeerResolveMs: 10_000,
});
