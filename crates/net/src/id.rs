//! Identifiers of the network's objects: nodes, flows, link directions and agents.
//!
//! Each is a `#[repr(transparent)]` newtype over the `u32` it was before, so that a node is
//! never passed where a flow is expected; the value is the object's index in the vector that
//! holds it ([`FlowId::index`] and the like) and its label in outputs (`Display`, the bare
//! number).

/// Defines one identifier type: the newtype, its index conversions and its label.
macro_rules! index_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The identifier of the object at `index` of its vector.
            #[inline]
            pub const fn from_index(index: usize) -> Self {
                $name(index as u32)
            }

            /// The object's index in the vector that holds it.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

index_id!(
    /// Index of a node (host or router) in the topology.
    NodeId
);
index_id!(
    /// Index of an application flow in the scenario.
    FlowId
);
index_id!(
    /// One direction of a link: link `i` has directions `2i` (from its end `a` to `b`) and
    /// `2i + 1` (back).
    DirId
);
index_id!(
    /// Index of an agent in the world.
    AgentId
);
