import Foundation
internal import PairSimCore

/// Running queries (R: A13). The platform answers a query for a type with what the app may read,
/// narrowed to the date window and UUIDs the predicate allows (`PredicatePlan`); the rest of the
/// predicate, the sort descriptors and the limit are applied here, on the app's side, when the
/// platform's own filter and order do not already say it all (then the platform counts the objects
/// it handed over in `objectsRead`, as many as HealthKit would have looked at).
extension HKHealthStore {
    /// Runs `query`: an observer, or a long-running anchored or statistics-collection query, until
    /// `stop`; any other once.
    public func execute(_ query: HKQuery) {
        let runtime = self.runtime
        switch query {
        case let observer as HKObserverQuery:
            register(observer, runtime: runtime)
        case let sample as HKSampleQuery:
            guard let type = sample.objectType as? HKSampleType else { return unsupported(query) }
            fetch(type, predicate: sample.predicate, sortDescriptors: sample.sortDescriptors, limit: sample.limit) { result in
                switch result {
                case .success(let objects): sample.resultsHandler(sample, objects, nil)
                case .failure(let error): sample.resultsHandler(sample, nil, error)
                }
            }
        case let anchored as HKAnchoredObjectQuery:
            runAnchored(anchored, runtime: runtime)
        case let statistics as HKStatisticsQuery:
            statistics.run(on: self)
        case let collection as HKStatisticsCollectionQuery:
            collection.run(on: self)
        default:
            unsupported(query)
        }
    }

    /// Ends a long-running query (an observer, an anchored query with an update handler, a
    /// statistics-collection query with a statistics update handler).
    public func stop(_ query: HKQuery) {
        let runtime = self.runtime
        query.stopped = true
        let ids = (query as? HKObserverQuery).map { Array($0.watched.keys).sorted() } ?? query.id.map { [$0] } ?? []
        for id in ids where runtime.observerQueries.removeValue(forKey: id) != nil { runtime.send(.stopQuery(id)) }
    }

    func unsupported(_ query: HKQuery) {
        runtime.report("unsupported", "HKHealthStore.execute: \(type(of: query)) is not a query PairSim runs")
    }

    /// Registers an observer with the platform, once per descriptor (type); `query` keeps the ids
    /// for `stop`. A type PairSim does not store never changes: it is not registered.
    func register(_ observer: HKObserverQuery, runtime: AppRuntime) {
        let modelled = observer.descriptors.filter { $0.sampleType.core != nil }
        guard !modelled.isEmpty else { return unsupported(observer) }
        for descriptor in modelled {
            let id = runtime.id()
            if observer.id == nil { observer.id = id }
            observer.watched[id] = HKObserverQuery.Watch(descriptor: descriptor)
            runtime.observerQueries[id] = observer
            runtime.send(.executeObserver(query: id, type: descriptor.sampleType.core!))
        }
    }

    /// Samples of `type` the predicate accepts, in the descriptors' order, at most `limit`
    /// (`HKObjectQueryNoLimit`: all).
    func fetch(_ type: HKSampleType, predicate: NSPredicate?, sortDescriptors: [NSSortDescriptor]?, limit: Int,
               completion: @escaping (Result<[HKSample], HKError>) -> Void) {
        guard let core = type.core else {
            // A type PairSim does not store holds nothing (docs/FIDELITY.md).
            return completion(.success([]))
        }
        let plan = PredicatePlan(predicate)
        let order = Self.platformOrder(sortDescriptors)
        let platformDoesAll = plan.exact && order != nil
        let spec = QuerySpec.samples(core, from: plan.from?.instant, to: plan.to?.instant,
                                     uuids: plan.uuids.map { $0.sorted { $0.uuidString < $1.uuidString } },
                                     newestFirst: order ?? false, limit: platformDoesAll && limit > 0 ? limit : nil)
        runtime.query(spec) { answer in
            completion(answer.objects.map { objects in
                guard !platformDoesAll else { return objects }
                let kept = HKSample.sorted(PredicatePlan.filter(objects, by: predicate), by: sortDescriptors)
                return limit > 0 ? Array(kept.prefix(limit)) : kept
            })
        }
    }

    /// The platform's own order for `descriptors`: oldest start first (false) or newest end first
    /// (true); nil when they ask for another.
    static func platformOrder(_ descriptors: [NSSortDescriptor]?) -> Bool? {
        guard let descriptors, let first = descriptors.first else { return false }
        guard descriptors.count == 1 else { return nil }
        switch (first.healthKitKey, first.ascending) {
        case (HKSampleSortIdentifierStartDate?, true): return false
        case (HKSampleSortIdentifierEndDate?, false): return true
        default: return nil
        }
    }

    /// What changed of `type` after `anchor`, a page of at most `limit`, with the new anchor.
    func changes(_ type: HKSampleType, predicate: NSPredicate?, after anchor: HKQueryAnchor?, limit: Int,
                 completion: @escaping (Result<(added: [HKSample], deleted: [HKDeletedObject], anchor: HKQueryAnchor), HKError>) -> Void) {
        guard let core = type.core else { return completion(.success(([], [], anchor ?? HKQueryAnchor(0)))) }
        runtime.query(.anchored(core, anchor: anchor?.value, limit: limit > 0 ? limit : nil)) { answer in
            switch answer {
            case .anchored(let samples, let workouts, let deleted, let newAnchor):
                let added: [HKSample] = workouts.map { HKWorkout(core: $0) } + samples.map { HKSample.of($0) }
                completion(.success((PredicatePlan.filter(added, by: predicate), deleted.map { HKDeletedObject(uuid: $0.uuid) }, HKQueryAnchor(newAnchor))))
            case .failed(let name):
                completion(.failure(HKError(name)))
            case .objects:
                preconditionFailure("Invalid state: an anchored query answered with plain objects")
            }
        }
    }

    /// An anchored query: its results, then — with an update handler — each later change, as
    /// an observer of the type sees it.
    func runAnchored(_ query: HKAnchoredObjectQuery, runtime: AppRuntime) {
        guard let type = query.objectType as? HKSampleType else { return unsupported(query) }
        var latest = query.anchor
        changes(type, predicate: query.predicate, after: latest, limit: query.limit) { [weak self] result in
            switch result {
            case .success(let page):
                latest = page.anchor
                query.resultsHandler(query, page.added, page.deleted, page.anchor, nil)
            case .failure(let error):
                query.resultsHandler(query, nil, nil, nil, error)
            }
            guard let self, query.updateHandler != nil, !query.stopped else { return }
            let observer = HKObserverQuery(sampleType: type, predicate: nil) { [weak self] _, completion, _ in
                guard let self, !query.stopped, let update = query.updateHandler else { return completion() }
                self.changes(type, predicate: query.predicate, after: latest, limit: HKObjectQueryNoLimit) { result in
                    switch result {
                    case .success(let page):
                        latest = page.anchor
                        if !page.added.isEmpty || !page.deleted.isEmpty { update(query, page.added, page.deleted, page.anchor, nil) }
                    case .failure(let error):
                        update(query, nil, nil, nil, error)
                    }
                    completion()
                }
            }
            self.register(observer, runtime: runtime)
            query.id = observer.id
        }
    }
}
