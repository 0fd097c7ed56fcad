-- tidings store: what was recorded of an inspected page (FF6), JSON: its title, description
-- and language (bounded), the licence and terms links it declares and its directives for the
-- bot. Never the page's text.
ALTER TABLE resources ADD COLUMN page TEXT;
