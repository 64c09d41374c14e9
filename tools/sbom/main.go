// Command sbom writes an SPDX 2.3 JSON software bill of materials for a Go
// binary from the build information the Go toolchain embeds in it (what
// `go version -m` prints): the main module, every module linked in, with
// versions, go.sum hashes and purls, the Go version and build settings.
// goreleaser's sboms: step runs it on each binary (syft is not needed).
//
//	go run ./tools/sbom BINARY > BINARY.spdx.json
//	go run ./tools/sbom -o FILE BINARY
package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type spdxDoc struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      creationInfo   `json:"creationInfo"`
	Packages          []spdxPackage  `json:"packages"`
	Relationships     []relationship `json:"relationships"`
}

type creationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
	Comment  string   `json:"comment,omitempty"`
}

type spdxPackage struct {
	Name             string        `json:"name"`
	SPDXID           string        `json:"SPDXID"`
	VersionInfo      string        `json:"versionInfo,omitempty"`
	DownloadLocation string        `json:"downloadLocation"`
	FilesAnalyzed    bool          `json:"filesAnalyzed"`
	Checksums        []checksum    `json:"checksums,omitempty"`
	ExternalRefs     []externalRef `json:"externalRefs,omitempty"`
	Comment          string        `json:"comment,omitempty"`
}

type checksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type externalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

func main() {
	out := flag.String("o", "", "write to FILE (default: stdout)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sbom [-o FILE] BINARY")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "sbom:", err)
		os.Exit(1)
	}
}

func run(bin, out string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return err
	}
	f, err := os.Open(bin)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	sum := hex.EncodeToString(h.Sum(nil))

	created := time.Now().UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" { // reproducible builds
		var sec int64
		if _, err := fmt.Sscan(s, &sec); err == nil {
			created = time.Unix(sec, 0).UTC()
		}
	}
	var settings []string
	for _, s := range bi.Settings {
		settings = append(settings, s.Key+"="+s.Value)
	}
	doc := spdxDoc{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              filepath.Base(bin),
		DocumentNamespace: "https://github.com/toolguard/toolguard/sbom/" + filepath.Base(bin) + "-" + sum,
		CreationInfo: creationInfo{
			Created:  created.Format(time.RFC3339),
			Creators: []string{"Tool: toolguard-tools-sbom", "Tool: " + bi.GoVersion},
			Comment:  "From the binary's embedded Go build information. Build settings: " + strings.Join(settings, " "),
		},
	}
	mainID := "SPDXRef-Package-main"
	doc.Packages = append(doc.Packages, spdxPackage{
		Name:             bi.Main.Path,
		SPDXID:           mainID,
		VersionInfo:      bi.Main.Version,
		DownloadLocation: "https://" + bi.Main.Path,
		Checksums:        []checksum{{"SHA256", sum}},
		ExternalRefs:     []externalRef{purl(bi.Main.Path, bi.Main.Version)},
		Comment:          "the binary " + filepath.Base(bin),
	})
	doc.Relationships = append(doc.Relationships, relationship{"SPDXRef-DOCUMENT", "DESCRIBES", mainID})
	doc.Packages = append(doc.Packages, spdxPackage{
		Name: "stdlib", SPDXID: "SPDXRef-Package-stdlib", VersionInfo: strings.TrimPrefix(bi.GoVersion, "go"),
		DownloadLocation: "https://go.dev/dl/", ExternalRefs: []externalRef{purl("stdlib", strings.TrimPrefix(bi.GoVersion, "go"))},
	})
	doc.Relationships = append(doc.Relationships, relationship{mainID, "DEPENDS_ON", "SPDXRef-Package-stdlib"})
	for i, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		id := fmt.Sprintf("SPDXRef-Package-%d", i+1)
		p := spdxPackage{
			Name: m.Path, SPDXID: id, VersionInfo: m.Version,
			DownloadLocation: "https://proxy.golang.org/" + m.Path + "/@v/" + m.Version + ".zip",
			ExternalRefs:     []externalRef{purl(m.Path, m.Version)},
		}
		if m.Sum != "" {
			p.Comment = "go.sum " + m.Sum
		}
		if d.Replace != nil {
			p.Comment = strings.TrimSpace(p.Comment + " (replaces " + d.Path + " " + d.Version + ")")
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, relationship{mainID, "DEPENDS_ON", id})
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

func purl(path, version string) externalRef {
	loc := "pkg:golang/" + path
	if version != "" && version != "(devel)" {
		loc += "@" + version
	}
	return externalRef{"PACKAGE-MANAGER", "purl", loc}
}
