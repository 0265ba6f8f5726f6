"""The REST request pipeline: routing, params, validation, errors, links, _embed, _fields, pagination."""
