"""Demo content for `sitehost init --demo`: a believable school site."""
