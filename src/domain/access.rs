//! Owns the people side of access: plans and the access level a key holder has on a cabinet.

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Plan {
    Free,
    Pro,
    Agency,
}

impl Plan {
    pub fn parse(s: &str) -> Option<Plan> {
        match s {
            "free" => Some(Plan::Free),
            "pro" => Some(Plan::Pro),
            "agency" => Some(Plan::Agency),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Free => "free",
            Plan::Pro => "pro",
            Plan::Agency => "agency",
        }
    }

    /// Pro and Agency include API keys.
    pub fn includes_api(self) -> bool {
        matches!(self, Plan::Pro | Plan::Agency)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Owner,
    Manager,
    Viewer,
}

impl Access {
    pub fn parse(s: &str) -> Option<Access> {
        match s {
            "owner" => Some(Access::Owner),
            "manager" => Some(Access::Manager),
            "viewer" => Some(Access::Viewer),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Access::Owner => "owner",
            Access::Manager => "manager",
            Access::Viewer => "viewer",
        }
    }

    pub fn can_write(self) -> bool {
        matches!(self, Access::Owner | Access::Manager)
    }
}
