-- tidings store: FF7, FF8, the one thumbnail selected for a feed with its licence decision, as
-- JSON (`tidings_model::SelectedImage`); NULL when none was selected. Every full read decides
-- it again.
ALTER TABLE feeds ADD COLUMN thumbnail TEXT;
