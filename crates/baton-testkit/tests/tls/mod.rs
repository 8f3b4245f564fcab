//! Certificates made for one test, and files for the client side, shared by the TLS tests.

use std::path::PathBuf;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

/// A certificate authority made for one test.
pub struct Authority {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key, PEM.
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

impl Authority {
    pub fn new(name: &str) -> Authority {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Authority { issuer }
    }

    /// A certificate for `names` (host names or IP addresses), with `common_name`.
    pub fn issue(&self, common_name: &str, names: &[&str]) -> Issued {
        let names: Vec<String> = names.iter().map(|name| name.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name.push(DnType::CommonName, common_name);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &*self.issuer).unwrap();
        Issued { cert_pem: cert.pem(), key_pem: key.serialize_pem() }
    }

    pub fn pem(&self) -> String {
        self.issuer.pem()
    }
}

/// Files for the client side of a test, removed with it.
pub struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    pub fn new() -> Files {
        Files { dir: tempfile::tempdir().unwrap() }
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}
